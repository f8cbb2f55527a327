import type { Context } from 'hono';
import { NO_STORE, PRIVATE } from '../core/cache-control';
import type { AppEnv } from '../env';
import type { CredentialPlace, Version } from '../versions/version';
import { walk } from '../versions/walker';
import type { Policy } from './policy';
import { policyHeaders } from './response-headers';

/**
 * Who may keep an answer (docs/reference/requests.md, RFC 9111). The gateway's own word replaces any a
 * handler or a backend gave, so a cache along the way never serves one caller's answer to another:
 * - an answer to an authenticated caller (200 and 304): `private, no-cache`, varying on every
 *   request header that can carry a credential on that version;
 * - errors, redirects and 426: `no-store` (`uncacheable`);
 * - health, the token endpoint: `no-store`, set by their routes;
 * - the API descriptions and the docs page: `public, max-age=300`, set by their routes.
 * CORS answers `Access-Control-Allow-Origin: *` whatever the `Origin`, so no answer varies on it.
 */

/** The header names that carry a credential on a version, as one `Vary` value. */
const varyOf = new WeakMap<Version, string>();

const HEADER_NAMES: Partial<Record<CredentialPlace, string>> = { authorization: 'Authorization', 'x-api-key': 'X-Api-Key', 'x-key': 'X-Key' };

function credentialHeaders(version: Version): string {
  let vary = varyOf.get(version);
  if (vary === undefined) {
    // A query credential needs no `Vary`: the query is part of the cache key already.
    const names = walk.credentials(version).places.flatMap((place) => HEADER_NAMES[place] ?? []);
    varyOf.set(version, (vary = names.join(', ')));
  }
  return vary;
}

/**
 * After authentication: the answer belongs to this caller. Set before the handler runs, so the
 * answer is built once with it (`respond`); an error thrown later is made `no-store` by the
 * renderer, and a response built without the renderer (a legacy backend's error) here.
 */
export const caching = (): Policy => ({
  before(c) {
    const version = c.get('version');
    if (version === undefined || c.get('caller') === undefined) return undefined;
    const headers = policyHeaders(c);
    headers.set('cache-control', PRIVATE);
    headers.set('vary', credentialHeaders(version));
    return undefined;
  },
  after(c) {
    if (c.res.status >= 300 && c.res.status !== 304) uncacheable(c);
  },
});

/** The answer may be kept by nobody: errors, redirects. */
export function uncacheable(c: Context<AppEnv>): void {
  const headers = policyHeaders(c);
  headers.set('cache-control', NO_STORE);
  headers.delete('vary');
}
