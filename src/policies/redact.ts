import { isCredentialName, pairName, rawQueryPairs } from '../core/query-string';

export const REDACTED = '[redacted]';

/**
 * A path and query for logs: the value of every parameter named like a credential, in any letter
 * case and however its name is percent-encoded (`?KEY=`, `?%6Bey=`), replaced by `[redacted]`.
 */
export function redactedTarget(url: string): string {
  const u = new URL(url);
  const pairs = rawQueryPairs(url).map((p) => (isCredentialName(pairName(p)) ? `${p.split('=')[0]}=${REDACTED}` : p));
  return u.pathname + (pairs.length > 0 ? `?${pairs.join('&')}` : '');
}

/** Headers for logs, names in lower case: the value of every header named like a credential replaced by `[redacted]`. */
export function redactedHeaders(headers: Headers | Record<string, string | string[] | undefined>): Record<string, string> {
  const entries: Array<[string, string]> =
    headers instanceof Headers
      ? [...headers.entries()]
      : Object.entries(headers).flatMap(([name, value]) =>
          value === undefined ? [] : [[name, Array.isArray(value) ? value.join(', ') : value] as [string, string]],
        );
  return Object.fromEntries(entries.map(([name, value]) => [name.toLowerCase(), isCredentialName(name) ? REDACTED : value]));
}
