/** Query parameters that carry secrets in v1 (`?key=`, `?token=`). */
export const CREDENTIAL_PARAMS: ReadonlySet<string> = new Set(['key', 'token']);

/** Decodes a `application/x-www-form-urlencoded` name, tolerating malformed escapes. */
export function decodeParamName(raw: string): string {
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

/** A path and query for logs: credential parameter values replaced by `[redacted]`. */
export function redactedTarget(url: string): string {
  const u = new URL(url);
  const pairs = rawQueryPairs(url).map((p) => (CREDENTIAL_PARAMS.has(pairName(p)) ? `${p.split('=')[0]}=[redacted]` : p));
  return u.pathname + (pairs.length > 0 ? `?${pairs.join('&')}` : '');
}
