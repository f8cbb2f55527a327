import { isCredentialName, pairName, rawQueryPairs } from '../core/query-string';

const REDACTED = '[redacted]';

/**
 * A path and query for logs: the value of every parameter named like a credential, in any letter
 * case and however its name is percent-encoded (`?KEY=`, `?%6Bey=`), replaced by `[redacted]`.
 */
export function redactedTarget(url: string): string {
  const u = new URL(url);
  const pairs = rawQueryPairs(url).map((p) => (isCredentialName(pairName(p)) ? `${p.split('=')[0]}=${REDACTED}` : p));
  return u.pathname + (pairs.length > 0 ? `?${pairs.join('&')}` : '');
}
