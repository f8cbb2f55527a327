/** The raw query string of a request, as the caller wrote it (links keep its order and encoding). */

/** Query parameters that carry secrets in v1 (`?key=`, `?token=`): never in a link or a log. */
export const CREDENTIAL_PARAMS: ReadonlySet<string> = new Set(['key', 'token']);

/**
 * Every name a credential goes by, as a query parameter or a header (docs/reference/requests.md), lower
 * case. Callers put secrets under these names whether or not the gateway reads them, so logs and
 * forwarded requests drop them all, in any letter case.
 */
export const CREDENTIAL_NAMES: ReadonlySet<string> = new Set([
  'key',
  'token',
  'api_key',
  'apikey',
  'access_token',
  'client_secret',
  'password',
  'authorization',
  'x-api-key',
  'x-key',
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
  const pairs = url.slice(q + 1, hash < 0 ? undefined : hash).split('&');
  // Empty pairs (`a=1&&b=2`, a trailing `&`) are rare: dropped only when there are any.
  return pairs.includes('') ? pairs.filter((p) => p.length > 0) : pairs;
}

/**
 * A parameter named like a credential, as written, in any letter case (the names of
 * `CREDENTIAL_NAMES`). Matched only in a query without escapes, which request URLs keep ASCII, where
 * this letter case and `isCredentialName`'s agree.
 */
const CREDENTIAL_PAIR = new RegExp(`(?:^|&)(?:${[...CREDENTIAL_NAMES].map((n) => n.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')).join('|')})(?:[=&]|$)`, 'i');

/**
 * The query of `url` when reading it pair by pair would change nothing (the usual `?page=2`): no
 * escape to decode, no empty pair, no fragment, no parameter named like a credential; else
 * undefined, and the reader goes pair by pair. Logs and kept-page keys take it as it is.
 */
export function plainQuery(url: string): string | undefined {
  // Authentication, the access line and the kept-page key ask about the same URL in turn.
  if (url !== plain.url) plain = { url, query: readPlain(url) };
  return plain.query;
}

let plain: { url: string; query: string | undefined } = { url: '', query: undefined };

function readPlain(url: string): string | undefined {
  const q = url.indexOf('?');
  if (q < 0 || q === url.length - 1) return undefined;
  const query = url.slice(q + 1);
  if (/[%+#]|&&|^&|&$|[^\x21-\x7e]/.test(query) || CREDENTIAL_PAIR.test(query)) return undefined;
  return query;
}

export function pairName(pair: string): string {
  const eq = pair.indexOf('=');
  return decodeParamName(eq < 0 ? pair : pair.slice(0, eq));
}

/** What a list request reads of its query: `URLSearchParams`, or the lighter `queryParams`. */
export interface QueryParams {
  getAll(name: string): string[];
  [Symbol.iterator](): IterableIterator<[string, string]> | Iterator<[string, string]>;
}

/**
 * The decoded parameters of a URL's query. A query with nothing to decode (no `%`, no `+`, the
 * usual case) is split as it is; any other is read by `URLSearchParams`, whose decoding rules
 * are the standard's.
 */
export function queryParams(url: string): QueryParams {
  const pairs = rawQueryPairs(url);
  if (pairs.some((p) => p.includes('%') || p.includes('+'))) return new URL(url).searchParams;
  const entries = pairs.map((p): [string, string] => {
    const eq = p.indexOf('=');
    return eq < 0 ? [p, ''] : [p.slice(0, eq), p.slice(eq + 1)];
  });
  return {
    getAll: (name) => entries.filter(([n]) => n === name).map(([, v]) => v),
    [Symbol.iterator]: () => entries[Symbol.iterator](),
  };
}

/** The path of an absolute URL as the runtime normalized it (what `new URL(url).pathname` gives), without parsing it. */
export function pathname(url: string): string {
  const start = url.indexOf('/', url.indexOf('://') + 3);
  if (start < 0) return '/';
  let end = start;
  while (end < url.length && url[end] !== '?' && url[end] !== '#') end++;
  return url.slice(start, end);
}
