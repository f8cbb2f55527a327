import { isCredentialName, pairName, pathname, plainQuery, rawQueryPairs } from './query-string';

const REDACTED = '[redacted]';

/**
 * A path and query for logs: the value of every parameter named like a credential, in any letter
 * case and however its name is percent-encoded (`?KEY=`, `?%6Bey=`), replaced by `[redacted]`.
 */
export function redactedTarget(url: string): string {
  const path = pathname(url);
  const plain = plainQuery(url);
  if (plain !== undefined) return `${path}?${plain}`;
  const pairs = rawQueryPairs(url);
  if (pairs.length === 0) return path;
  for (let i = 0; i < pairs.length; i++) {
    const pair = pairs[i]!;
    if (isCredentialName(pairName(pair))) pairs[i] = `${pair.split('=')[0]}=${REDACTED}`;
  }
  return `${path}?${pairs.join('&')}`;
}
