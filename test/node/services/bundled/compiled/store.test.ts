/**
 * The compiled dataset read in place on Node (`fileStore`): sections by positioned reads, record
 * chunks kept as their heads only, and records' JSON read when a request needs it. What it
 * answers must be what the same file answers read whole, section by section (as a store without
 * partial reads is read), and what it keeps must stay small whatever is read. That the file is what
 * the current compiler makes of the fixture is compiled-dataset.test.ts's subject.
 */
import { describe, expect, it } from 'vitest';
import { fileStore } from '../../../../../src/node';
import { BundledSource } from '../../../../../src/services/bundled/bundled-source';
import { PieceCache } from '../../../../../src/services/bundled/compiled/piece-cache';
import type { SectionStore } from '../../../../../src/services/bundled/compiled/store';
import type { ListQuery, ResourceName } from '../../../../../src/services/record-source';
import { dataset } from '../../../../support/harness';

/** The file store, counting its partial reads. */
function countingStore(): SectionStore & { ranges: number } {
  const file = fileStore();
  const store = {
    meta: file.meta,
    ranges: 0,
    load: (name: string) => file.load(name),
    range: (name: string, from: number, to: number) => (store.ranges++, file.range!(name, from, to)),
  };
  return store;
}

const byId = (resource: ResourceName) => new Map((dataset[resource] as Array<{ id: string }>).map((r) => [r.id, r]));

describe('the compiled dataset read in place', () => {
  it('answers pages in every order, scopes, searches and details as the same file read whole does', async () => {
    const file = new BundledSource(fileStore());
    const whole = fileStore();
    const wholly = new BundledSource({ meta: whole.meta, load: (name) => whole.load(name) });
    const queries: Array<[ResourceName, ListQuery, { parent: ResourceName; id: string }?]> = [
      ['species', { q: undefined, order: [], page: 1 }],
      ['species', { q: undefined, order: [], page: 1640 }],
      ['species', { q: undefined, order: [{ field: 'common_name', direction: 'desc' }], page: 3 }],
      [
        'species',
        {
          q: undefined,
          order: [
            { field: 'scientific_name', direction: 'asc' },
            { field: 'id', direction: 'desc' },
          ],
          page: 900,
        },
      ],
      ['species', { q: 'fir', order: [], page: 2 }],
      ['plants', { q: undefined, order: [{ field: 'slug', direction: 'asc' }], page: 77 }],
      ['families', { q: undefined, order: [], page: 19 }],
      ['species', { q: undefined, order: [], page: 1 }, { parent: 'genus', id: 'Abies' }],
      ['plants', { q: undefined, order: [], page: 2 }, { parent: 'families', id: 'Rosaceae' }],
    ];
    for (const [resource, query, scope] of queries) {
      const label = JSON.stringify([resource, query, scope]);
      const page = (await file.list(resource, query, scope))!;
      expect(page, label).toEqual(await wholly.list(resource, query, scope));
      const records = byId(resource);
      for (const item of page.items) expect(item, label).toEqual(records.get((item as { id: string }).id));
    }
    const details: Array<[ResourceName, string]> = [
      ['species', 'ABBA'],
      ['species', dataset.species.at(-1)!.id],
      ['genus', 'Abies'],
      ['families', 'Rosaceae'],
      ['plants', 'QUAL'],
    ];
    for (const [resource, id] of details) {
      const found = await file.get(resource, id);
      expect(found, id).toBeDefined();
      expect(found, id).toEqual(await wholly.get(resource, id));
      expect(await file.stored.get(resource, id, { requestId: 't' }), id).toMatchObject({
        etag: (await wholly.stored.get(resource, id, { requestId: 't' }))!.etag,
      });
    }
  });

  it('reads the records of a page in one read per run of consecutive records', async () => {
    const store = countingStore();
    const source = new BundledSource(store);
    // Positions 40-59: chunks 2 (40-47) and 3 (48-59), so two runs.
    const query = { q: undefined, order: [], page: 3 };
    await source.list('species', query, undefined);
    const before = store.ranges;
    await source.list('species', query, undefined);
    expect(store.ranges - before).toBe(2);
  });

  it('finds a detail through the id index it holds, then reads that record alone', async () => {
    const store = countingStore();
    const source = new BundledSource(store);
    await source.get('species', 'ABBA');
    const before = store.ranges;
    expect(await source.get('species', 'ABBA')).toMatchObject({ record: { id: 'ABBA' } });
    expect(store.ranges - before).toBe(1);
  });

  it('reads no record twice for a search (its records are read once, after its answer)', async () => {
    const file = fileStore();
    const reads: string[] = [];
    const store: SectionStore = {
      meta: file.meta,
      load: (name) => file.load(name),
      range: (name, from, to) => (reads.push(`${name} ${from}-${to}`), file.range!(name, from, to)),
    };
    const source = new BundledSource(store);
    const page = (await source.list('species', { q: 'abies', order: [], page: 1 }, undefined))!;
    expect(page.items.length).toBeGreaterThan(0);
    expect(reads.length).toBeGreaterThan(0);
    expect(new Set(reads).size).toBe(reads.length);
  });

  it('keeps only the heads of record chunks, so reading every species page keeps a small fraction of the records', async () => {
    const cache = new PieceCache();
    const source = new BundledSource(fileStore(), cache);
    const pages = Math.ceil(dataset.species.length / 20);
    let recordBytes = 0;
    for (let page = 1; page <= pages; page++) {
      const { items } = (await source.stored.list('species', { q: undefined, order: [], page }, undefined, { requestId: 't' }))!;
      for (const item of items) recordBytes += item.bytes.byteLength;
    }
    expect(recordBytes).toBeGreaterThan(20 * 1024 * 1024);
    // Heads: about 700 bytes per chunk of 16 records, counted with their keys and per-entry overhead
    // (src/services/cache/entry-size.ts); the records themselves were read and let go.
    expect(cache.bytes).toBeGreaterThan(0);
    expect(cache.bytes).toBeLessThan(recordBytes / 8);
  });
});
