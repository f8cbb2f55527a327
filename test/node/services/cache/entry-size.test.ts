/**
 * Memory is bounded by configuration, not by traffic (docs/reference/operations.md): distinct searches,
 * each a key of the result cache and most with an empty result, must not grow the heap past the
 * cache's cap. Measured as V8 has it (the heap after a full collection), not as the cache counts it,
 * so a cache that under-counts its entries fails.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { RESOURCE_NAMES } from '../../../../src/core/resources';
import { fileStore } from '../../../../src/node';
import { PieceCache } from '../../../../src/services/bundled/compiled/piece-cache';
import { CompiledResource } from '../../../../src/services/bundled/compiled/resource';
import { ResultCache } from '../../../../src/services/bundled/result-cache';
import { ENTRY_OVERHEAD_BYTES, entryBytes, keyBytes } from '../../../../src/services/cache/entry-size';
import type { ResourceName } from '../../../../src/services/record-source';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const MiB = 2 ** 20;

/** The heap in use after a full collection, bytes. */
function liveHeap(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed + process.memoryUsage().external;
}

/** A search term of letters no two calls share. */
const term = (k: number) => `zq${k.toString(26).replace(/[0-9]/g, (d) => String.fromCharCode(107 + Number(d)))}`;

describe('the result cache under distinct searches', () => {
  it('keeps what it holds, keys and empty results included, within its cap, evicting the rest', async () => {
    const store = fileStore();
    const pieces = new PieceCache();
    const resources = Object.fromEntries(
      RESOURCE_NAMES.map((r, slot) => [r, new CompiledResource(store, r, store.meta.resources[r]!, pieces, slot)]),
    ) as Record<ResourceName, CompiledResource>;
    const cap = 2 * MiB;
    const results = new ResultCache(resources, cap);
    const search = (k: number) => results.window('species', { q: term(k), order: [] }, undefined, 0, 20);
    // The pieces every such search reads, loaded first: what grows after is the cache's own.
    for (let k = 0; k < 5_000; k++) await search(k);
    const before = liveHeap();
    const piecesBefore = pieces.bytes;
    const distinct = 200_000;
    for (let k = 5_000; k < 5_000 + distinct; k++) await search(k);
    const grown = liveHeap() - before - Math.max(0, pieces.bytes - piecesBefore);
    // Unbounded, 200,000 entries take some 12 MB (keys and LRU slots; empty results share one array); within the cap, at most the cap (and slack for the collector).
    expect(grown, `${(grown / MiB).toFixed(1)} MB grown`).toBeLessThan(cap + 2 * MiB);
    expect(results.stats.bytes).toBeLessThanOrEqual(cap);
    expect(results.stats.entries).toBeLessThan(distinct);
  }, 120_000);
});

describe('what an entry is counted as', () => {
  it('its key at two bytes a character beside a string header, or a pointer; its value; and the overhead', () => {
    expect(keyBytes('abcd') - keyBytes('ab')).toBe(4);
    expect(keyBytes('')).toBeGreaterThan(keyBytes(7));
    expect(keyBytes(7)).toBe(keyBytes({}));
    expect(entryBytes('key', 100) - entryBytes('key', 0)).toBe(100);
    expect(entryBytes('key', 0)).toBe(ENTRY_OVERHEAD_BYTES + keyBytes('key'));
    expect(entryBytes('a long key', 0) - entryBytes('key', 0)).toBe(keyBytes('a long key') - keyBytes('key'));
  });
});
