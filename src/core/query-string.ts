/** The raw query string of a request, as the caller wrote it (links keep its order and encoding). */

/** Query parameters that carry secrets in v1 (`?key=`, `?token=`): never in a link or a log. */
export const CREDENTIAL_PARAMS: ReadonlySet<string> = new Set(['key', 'token']);

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
