/**
 * The `Cache-Control` values the gateway gives (docs/reference/requests.md, RFC 9111); who gets which is
 * decided by src/policies/caching.ts and the routes that set their own.
 */
/** An answer to an authenticated caller (200 and 304): it belongs to that caller. */
export const PRIVATE = 'private, no-cache';
/** Errors, redirects, 426, health, the token endpoint: kept by nobody. */
export const NO_STORE = 'no-store';
/** The API descriptions and the docs page are the same for everyone (docs/reference/descriptions.md). */
export const PUBLIC = 'public, max-age=300';
