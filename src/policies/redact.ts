import { CREDENTIAL_PARAMS, pairName, rawQueryPairs } from '../core/query-string';

// The query-string helpers live in the core (links need them too); re-exported for the policies.
export { CREDENTIAL_PARAMS, decodeParamName, pairName, rawQueryPairs } from '../core/query-string';

/** A path and query for logs: credential parameter values replaced by `[redacted]`. */
export function redactedTarget(url: string): string {
  const u = new URL(url);
  const pairs = rawQueryPairs(url).map((p) => (CREDENTIAL_PARAMS.has(pairName(p)) ? `${p.split('=')[0]}=[redacted]` : p));
  return u.pathname + (pairs.length > 0 ? `?${pairs.join('&')}` : '');
}
