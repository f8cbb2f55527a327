/** The raw query string of a request, as the caller wrote it (links keep its order and encoding). */

/** Query parameters that carry secrets in v1 (`?key=`, `?token=`): never in a link or a log. */
export const CREDENTIAL_PARAMS: ReadonlySet<string> = new Set(['key', 'token']);

/**
 * Every name a credential goes by, as a query parameter or a header (CONTRACT section 18), lower
 * case. Callers put secrets under these names whether or not the gateway reads them, so logs and
 * forwarded requests drop them all, in any letter case.
 */
export const CREDENTIAL_NAMES: ReadonlySet<string> = new Set([
  'key', 'token', 'api_key', 'apikey', 'access_token', 'client_secret', 'password', 'authorization', 'x-api-key', 'x-key',
]);

/** Whether a (decoded) parameter or header name is a credential name, in any letter case. */
export function isCredentialName(name: string): boolean {
  return CREDENTIAL_NAMES.has(name.toLowerCase());
}

/** Decodes a `application/x-www-form-urlencoded` name, tolerating malformed escapes. */
export function decodeParamName(raw: string): string {
  if (!raw.includes('%') && !raw.includes('+')) return raw;
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

/** The raw `name=value` pairs of a URL's query, in the caller's order and encoding. */
export function rawQueryPairs(url: string): string[] {
  const q = url.indexOf('?');
  if (q < 0) return [];
  const hash = url.indexOf('#', q);
  return url.slice(q + 1, hash < 0 ? undefined : hash).split('&').filter((p) => p.length > 0);
}

export function pairName(pair: string): string {
  const eq = pair.indexOf('=');
  return decodeParamName(eq < 0 ? pair : pair.slice(0, eq));
}

/** Whether a URL's query holds a parameter named like a credential (a redirect to it must not be cached). */
export function queryHoldsCredential(url: string): boolean {
  return rawQueryPairs(url).some((pair) => isCredentialName(pairName(pair)));
}
