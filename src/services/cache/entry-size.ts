/**
 * What one cache entry costs, for every cache of the gateway: memory is bounded by configuration,
 * not by traffic (docs/reference/operations.md), so a cache counts its keys and its own bookkeeping beside
 * its values. A cache that counted values only (an empty search result as 1 byte) grew by some
 * 300 bytes per distinct query with nothing evicted.
 */

/**
 * Bytes counted per entry beside its key and value: the LRU's slots (its Map entry, the key,
 * value and list arrays, the size) and the value's own object (a typed array's view and buffer).
 * Measured on Node 20: 200,000 empty `Uint32Array` results under 32-character keys took 322 bytes
 * an entry, 274 of them besides the key string.
 */
export const ENTRY_OVERHEAD_BYTES = 288;

/** V8's header of a string. */
const STRING_HEADER_BYTES = 16;

/**
 * A key's bytes: a string at two bytes a character (V8 keeps a string holding any character past
 * U+00FF at two, and keys come from requests, so none is under-counted), a number or object as a pointer.
 */
export const keyBytes = (key: unknown): number => (typeof key === 'string' ? STRING_HEADER_BYTES + 2 * key.length : 8);

/** An entry's counted bytes: its key, its value's `valueBytes` and the overhead. */
export const entryBytes = (key: unknown, valueBytes: number): number => ENTRY_OVERHEAD_BYTES + keyBytes(key) + valueBytes;
