/**
 * A DNS name (labels of letters, digits, `-` and `_`, no label starting or ending with `-`), an
 * IPv4 address or a bracketed IPv6 literal, then an optional port: `host[:port]` as the URL
 * parser normalised it (lower case, punycode, default port dropped). The parser alone lets
 * through names no DNS holds (`a{b`, `a*b`), which must never reach a `Location`.
 */
export const VALID_HOST =
  /^(?:(?=[^:]{1,253}(?::|$))[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

/**
 * Whether `entry` (lower case) is a host a request can name: `VALID_HOST` with a port, if any,
 * from 1 to 65535. A `PUBLIC_HOSTS` entry that is not (a URL, a path, a port past the range) would
 * never match any request.
 */
export function isHostEntry(entry: string): boolean {
  const port = /:(\d+)$/.exec(entry)?.[1];
  return VALID_HOST.test(entry) && (port === undefined || (Number(port) >= 1 && Number(port) <= 65535));
}
