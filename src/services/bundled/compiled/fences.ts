/**
 * The chunk that would hold `key`: the last whose fence (its first key) is not above `key`, by
 * binary search over fences in ascending order; -1 when `key` is before them all. For ids (strings
 * in the id index's code-unit order) and for the search index's numeric keys alike.
 */
export function chunkOf<K extends string | number>(fences: readonly K[], key: K): number {
  let found = -1;
  for (let lo = 0, hi = fences.length - 1; lo <= hi; ) {
    const mid = (lo + hi) >>> 1;
    if (fences[mid]! <= key) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}
