/**
 * Whether a request is among the `percent` (0-100, two decimals) that are compared. A pure
 * function of the request id (FNV-1a over its characters), so whoever holds the id, a test or an
 * operator reading a log, can tell whether it was sampled.
 */
export function sampled(requestId: string, percent: number): boolean {
  if (percent <= 0) return false;
  if (percent >= 100) return true;
  let hash = 0x811c9dc5;
  for (let i = 0; i < requestId.length; i++) {
    hash ^= requestId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % 10_000 < Math.round(percent * 100);
}
