import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BundledSource } from '../../../../src/services/bundled/bundled-source';
import type { PieceIndex } from '../../../../src/services/bundled/compiled/piece-index';
import { fileStore } from '../../../../src/node';
import type { AnyRecord, RecordSource, ResourceName } from '../../../../src/services/record-source';
import { INDEX, inputsDigest } from '../../../../scripts/compile-data';
import { bundledSource, compiledInMemory, dataset, testApp } from '../../../support/harness';
import { naiveSearch } from '../../../support/search-oracle';

/** The naive search of each resource over the fixture (test/support/search-oracle.ts), made on first use. */
const oracles = new Map<ResourceName, ReturnType<typeof naiveSearch>>();
const naive = (resource: ResourceName, q: string): string[] => {
  let oracle = oracles.get(resource);
  if (!oracle) oracles.set(resource, (oracle = naiveSearch(dataset[resource] as AnyRecord[], resource)));
  return oracle.naive(q);
};

async function allIds(source: RecordSource, resource: ResourceName, q: string): Promise<string[]> {
  const ids: string[] = [];
  for (let page = 1; ; page++) {
    const result = (await source.list(resource, { q, order: [], page }, undefined, { requestId: 't' }))!;
    ids.push(...result.items.map((r) => r.id));
    if (page * result.perPage >= result.total) return ids;
  }
}

describe('search over the compiled gram index', () => {
  it.each([
    ['species', 'a'],
    ['species', 'x'],
    ['species', 'ab'],
    ['species', 'fir'],
    ['species', 'épin'],
    ['species', 'balsam fir'],
    ['species', 'ssp. '],
    ['species', ' × '],
    ['genus', 'Grass'],
    ['families', 'ae'],
    ['plants', 'LILY'],
  ] as const)('%s q=%j gives exactly the records a field of which holds it', async (resource, q) => {
    expect(await allIds(bundledSource(), resource, q)).toEqual(naive(resource, q));
  });

  it('never matches across two fields, with or without the separator in q', async () => {
    // ABBA: scientific_name "Abies balsamea", common_name "balsam fir".
    const source = bundledSource();
    expect(await allIds(source, 'species', 'abies balsamea')).toContain('ABBA');
    expect(await allIds(source, 'species', 'balsameabalsam')).toEqual([]);
    for (const q of ['balsamea\u0000balsam', '\u0000', 'a\u0000']) expect(await allIds(source, 'species', q), JSON.stringify(q)).toEqual([]);
  });

  it('matches nothing for a q that folds to nothing', async () => {
    expect(await allIds(bundledSource(), 'species', '\u0301\u0308')).toEqual([]);
  });
});

describe('bodies are the canonical JSON of the records, byte for byte', () => {
  const t = testApp();
  const byId = new Map(dataset.species.map((s) => [s.id, s]));

  it('a v2 page is JSON.stringify of its records, links and meta', async () => {
    const text = await (await t.get('/v2/species?page=2&q=abies')).text();
    const body = JSON.parse(text);
    const expected = { data: body.data.map((r: any) => byId.get(r.id)), links: body.links, meta: body.meta };
    expect(text).toBe(JSON.stringify(expected));
  });

  it('a v2 detail is JSON.stringify of {data, meta}, with its hash as ETag', async () => {
    const res = await t.get('/v2/species/ABBA');
    const text = await res.text();
    expect(text).toBe(
      JSON.stringify({
        data: byId.get('ABBA'),
        meta: { last_modified: '2026-03-18T00:00:00Z', synonyms_count: byId.get('ABBA')!.synonyms.length, sources_count: 2 },
      }),
    );
  });
});

describe('the compiled dataset on disk (generated/)', () => {
  it('was compiled from the current fixture by the current compiler', () => {
    const fixture = new Uint8Array(readFileSync(new URL('../../../../fixtures/taxa.json', import.meta.url)));
    expect((JSON.parse(readFileSync(INDEX, 'utf8')) as PieceIndex).meta.inputs).toBe(inputsDigest(fixture));
  });

  it('answers, read piece by piece, as the dataset compiled in memory does', async () => {
    const onDisk: RecordSource = new BundledSource(fileStore());
    const inMemory: RecordSource = compiledInMemory();
    for (const [resource, q] of [
      ['species', 'oak'],
      ['genus', 'grass'],
    ] as const) {
      const query = { q, order: [{ field: 'common_name', direction: 'desc' as const }], page: 1 };
      expect(await onDisk.list(resource, query, undefined, { requestId: 't' })).toEqual(await inMemory.list(resource, query, undefined, { requestId: 't' }));
    }
    expect(await onDisk.get('species', 'ABBA', { requestId: 't' })).toEqual(await inMemory.get('species', 'ABBA', { requestId: 't' }));
  });
});
