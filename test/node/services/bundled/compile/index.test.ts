/**
 * The compiler (src/services/bundled/compile) over a sample of the fixture: a few hundred records
 * closed under their relations (test/support/dataset-sample.ts), compiled in memory in tens of
 * milliseconds, so each test compiles its own (a mutation run credits code only to the tests during
 * which it ran). Every answer is judged by an oracle that does not use the compiler: a detail by
 * what the whole fixture compiled on disk answers for the same id (compiled before the tests, by
 * the unmutated compiler), a list by docs/reference/interface.md's order and search worked out naively over
 * the sample.
 */
import { describe, expect, it } from 'vitest';
import { RESOURCE_NAMES, RESOURCES } from '../../../../../src/core/resources';
import { BundledSource } from '../../../../../src/services/bundled/bundled-source';
import { hotSections } from '../../../../../src/services/bundled/compile/hot';
import { compileDataset } from '../../../../../src/services/bundled/compile/index';
import { ORDER_CHUNK, RECORD_CHUNK, SORTED_CHUNK, section } from '../../../../../src/services/bundled/compiled/layout';
import { memoryStore } from '../../../../../src/services/bundled/compiled/store';
import { type AnyRecord, PAGE_SIZE, type ResourceName, type Scope } from '../../../../../src/services/record-source';
import { datasetSample } from '../../../../support/dataset-sample';
import { bundledSource } from '../../../../support/harness';
import { contractOrder, idOrder, type OrderTerms } from '../../../../support/order-oracle';
import { naiveSearch, searchableFields } from '../../../../support/search-oracle';

/** What the stored reads are given with each call (a request id, for a source that forwards it). */
const CTX = { requestId: 'compile-sample' };
const decoder = new TextDecoder();
const text = (bytes: Uint8Array) => decoder.decode(bytes);

const sample = datasetSample;
const recordsOf = (resource: ResourceName) => sample()[resource] as readonly AnyRecord[];
/** The sample compiled in memory, afresh for each test that calls it. */
const compiled = () => new BundledSource(sample());

/**
 * Each record's key (`RawJson.key`), by resource and id: the resources one after another in their
 * declared order, each in id order. It numbers the records of the whole dataset, so it is worked
 * out over the sample.
 */
function naiveKeys(): Map<string, number> {
  const keys = new Map<string, number>();
  for (const resource of RESOURCE_NAMES) {
    const ids = recordsOf(resource)
      .map((record) => record.id)
      .sort(idOrder.compare);
    for (const id of ids) keys.set(`${resource}/${id}`, keys.size);
  }
  return keys;
}
const naiveKey = (resource: ResourceName, id: string) => (keys ??= naiveKeys()).get(`${resource}/${id}`);
let keys: Map<string, number> | undefined;

const inOrder = (records: readonly AnyRecord[], terms: OrderTerms) => [...records].sort(contractOrder(terms));
/** Each sortable field both ways, then two of them together (the second orders each tie group of the first). */
const ORDERS = (resource: ResourceName): OrderTerms[] => {
  const fields = RESOURCES[resource].sortable;
  const name = fields[0]!;
  return [
    [],
    ...fields.flatMap((field): OrderTerms[] => [[[field, 'asc']], [[field, 'desc']]]),
    [
      ['common_name', 'desc'],
      [name, 'asc'],
    ],
    [
      [fields.at(-2)!, 'desc'],
      ['id', 'desc'],
    ],
  ];
};

interface Walked {
  ids: string[];
  /** Each record as the parsed read gives it, and as the stored read keeps it, as JSON text. */
  parsed: string[];
  stored: string[];
  keys: Array<number | undefined>;
  /** Each page's number, size, total and item count, as both reads give them. */
  pages: Array<[page: number, perPage: number, total: number, items: number]>;
}

/** Every page of a list, through both reads (parsed and stored), up to the first empty page past the last. */
async function walk(source: BundledSource, resource: ResourceName, q: string | undefined, terms: OrderTerms, scope?: Scope): Promise<Walked | undefined> {
  const walked: Walked = { ids: [], parsed: [], stored: [], keys: [], pages: [] };
  for (let page = 1; page < 1000; page++) {
    const query = { q, order: terms.map(([field, direction]) => ({ field, direction })), page };
    const [parsed, stored] = await Promise.all([source.list(resource, query, scope), source.stored.list(resource, query, scope, CTX)]);
    if (parsed === undefined || stored === undefined) {
      expect(stored, 'the two reads agree the scope is missing').toBe(parsed);
      return undefined;
    }
    walked.pages.push([parsed.page, parsed.perPage, parsed.total, parsed.items.length], [stored.page, stored.perPage, stored.total, stored.items.length]);
    walked.ids.push(...parsed.items.map((r) => r.id));
    walked.parsed.push(...parsed.items.map((r) => JSON.stringify(r)));
    walked.stored.push(...stored.items.map((r) => text(r.bytes)));
    walked.keys.push(...stored.items.map((r) => r.key));
    if (parsed.items.length === 0) return walked;
  }
  throw new Error('runaway walk');
}

/**
 * Asserts a list, walked to its end, is `expected`: its records (compared as canonical JSON, the
 * same check as a deep comparison in a fraction of its time) and their keys, and pages of
 * `PAGE_SIZE` with the total on each, then one empty page.
 */
async function expectList(source: BundledSource, resource: ResourceName, expected: AnyRecord[], q: string | undefined, terms: OrderTerms, scope?: Scope) {
  const walked = await walk(source, resource, q, terms, scope);
  const canonical = expected.map((r) => JSON.stringify(r));
  const count = Math.ceil(expected.length / PAGE_SIZE);
  const pages = Array.from({ length: count + 1 }, (_, i): Walked['pages'][number] => {
    const meta = [i + 1, PAGE_SIZE, expected.length, Math.max(0, Math.min(PAGE_SIZE, expected.length - i * PAGE_SIZE))] as const;
    return [...meta];
  }).flatMap((meta) => [meta, [...meta] as typeof meta]);
  expect(walked, JSON.stringify({ resource, q, terms, scope })).toEqual({
    ids: expected.map((r) => r.id),
    parsed: canonical,
    stored: canonical,
    keys: expected.map((r) => naiveKey(resource, r.id)),
    pages,
  });
}

describe('the compiler over a sample of the fixture', () => {
  it('has chosen records of every kind, closed under their relations', () => {
    const { species, genus, families, plants, species_sources } = sample();
    const total = species.length + genus.length + families.length + plants.length;
    expect(total).toBeGreaterThan(300);
    expect(total).toBeLessThan(1000);
    const has = (ids: Array<string | null>, records: readonly AnyRecord[]) => ids.every((id) => id === null || records.some((r) => r.id === id));
    expect(has([...species.map((s) => s.genus_id), ...plants.map((p) => p.genus_id)], genus)).toBe(true);
    expect(
      has(
        [...species, ...genus, ...plants].map((r) => r.family_id),
        families,
      ),
    ).toBe(true);
    expect(
      has(
        species.map((s) => s.plant_id),
        plants,
      ),
    ).toBe(true);
    expect(
      has(
        plants.map((p) => p.main_species_id),
        species,
      ),
    ).toBe(true);
    expect(Object.keys(species_sources).every((id) => species.some((s) => s.id === id))).toBe(true);
    expect(Object.keys(species_sources).length).toBeGreaterThan(5);
    for (const resource of RESOURCE_NAMES) {
      const records = recordsOf(resource) as any[];
      expect(
        records.some((r) => r.common_name === null),
        `${resource} without a common name`,
      ).toBe(true);
      expect(records.some((r) => r.common_name !== null)).toBe(true);
      // No family name of the fixture has one.
      if (resource !== 'families')
        expect(
          records.some((r) => /[^ -~]/.test(searchableFields(resource, r).join())),
          `${resource} with a mark or sign`,
        ).toBe(true);
    }
    expect(species.some((s) => s.synonyms.some((n) => /[^ -~]/.test(n)))).toBe(true);
    // Numeric-aware id order differs from code-unit order here (`ABAM2` before `ABAM10`).
    const ids = species.map((s) => s.id);
    expect([...ids].sort(idOrder.compare)).not.toEqual([...ids].sort());
  });

  // The quick tests first: a mutant's run stops at its first failing test.
  it("carries the dataset's last_modified, its counts, and is ready", async () => {
    const source = compiled();
    expect(source.lastModified).toBe(sample().dataset.last_modified);
    expect(source.counts()).toEqual(Object.fromEntries(RESOURCE_NAMES.map((r) => [r, recordsOf(r).length])));
    expect(await source.ready()).toEqual({ ready: true, report: { mode: 'bundled' } });
    expect(source.immutable).toBe(true);
  });

  it('refuses a record naming a parent the dataset lacks, saying which', () => {
    const base = sample();
    const genusId = base.species[0]!.genus_id;
    const broken = { ...base, genus: base.genus.filter((g) => g.id !== genusId) };
    let error = 'compiled';
    try {
      compileDataset(broken);
    } catch (err) {
      error = (err as Error).message;
    }
    const [, named] = /^(\S+) names genus "/.exec(error) ?? [];
    expect(error).toBe(`${named} names genus "${genusId}", which does not exist`);
    expect([...base.species, ...base.plants].some((r) => r.id === named && r.genus_id === genusId)).toBe(true);
  });

  it('keeps the first chunk of every stored order among the pieces shipped hot', async () => {
    const store = memoryStore(compileDataset(sample()));
    const expected = RESOURCE_NAMES.flatMap((resource) =>
      RESOURCES[resource].sortable
        .filter((field) => field !== 'id')
        .flatMap((field) => ['asc', 'desc'].map((direction) => section.order(resource, field, direction, 0))),
    );
    expect(hotSections(store.meta)).toEqual(expected);
    for (const resource of RESOURCE_NAMES) {
      const idAt = recordsOf(resource)
        .map((r) => r.id)
        .sort(idOrder.compare);
      for (const field of RESOURCES[resource].sortable.filter((f) => f !== 'id')) {
        for (const direction of ['asc', 'desc'] as const) {
          const positions = (await store.load(section.order(resource, field, direction, 0))) as Uint32Array;
          const ids = inOrder(recordsOf(resource), [[field, direction]]).map((r) => r.id);
          expect(
            Array.from(positions, (at) => idAt[at]),
            `${resource} by ${field} ${direction}`,
          ).toEqual(ids.slice(0, ORDER_CHUNK));
        }
      }
    }
  });

  it('orders a number field as numbers, nulls last both ways (the fixture has no year: a copy of the sample with some)', async () => {
    const base = sample();
    // Numeric and text order differ here: 12 < 950 < 1753 < 2001, as text "12" < "1753" < "2001" < "950".
    const years = [1753, 950, 2001, 12];
    const species = base.species.map((s, i) => (i % 3 === 0 ? s : { ...s, year: years[i % years.length]! }));
    const source = new BundledSource({ ...base, species });
    for (const direction of ['asc', 'desc'] as const) {
      await expectList(source, 'species', inOrder(species, [['year', direction]]), undefined, [['year', direction]]);
    }
  });

  it('reads one piece for a detail, and for a page of one stored order its copies in that order', async () => {
    const compiledStore = memoryStore(compileDataset(sample()));
    /** A fresh source (nothing kept), and the pieces it loads. */
    const counted = () => {
      const loaded: string[] = [];
      const source = new BundledSource({ meta: compiledStore.meta, load: (name) => (loaded.push(name), compiledStore.load(name)) });
      return { source, loaded };
    };
    for (const resource of RESOURCE_NAMES) {
      const records = recordsOf(resource);
      // A record's position is its rank in id order.
      for (const [at, id] of records
        .map((r) => r.id)
        .sort(idOrder.compare)
        .entries()) {
        const { source, loaded } = counted();
        await source.stored.get(resource, id, CTX);
        expect(loaded, `${resource}/${id}`).toEqual([section.records(resource, Math.floor(at / RECORD_CHUNK))]);
      }
      for (const field of RESOURCES[resource].sortable.filter((f) => f !== 'id')) {
        for (const direction of ['asc', 'desc'] as const) {
          for (let page = 1; (page - 1) * PAGE_SIZE < records.length; page++) {
            const { source, loaded } = counted();
            await source.stored.list(resource, { q: undefined, order: [{ field, direction }], page }, undefined, CTX);
            const piece = section.sorted(resource, field, direction, Math.floor(((page - 1) * PAGE_SIZE) / SORTED_CHUNK));
            expect(loaded, `${resource} by ${field} ${direction}, page ${page}`).toEqual([section.order(resource, field, direction, 0), piece]);
          }
        }
      }
    }
  });

  it('answers every record as the whole dataset compiled on disk does, and an unknown id with nothing', async () => {
    const source = compiled();
    const disk = bundledSource();
    const { dataset, species_sources } = sample();
    for (const resource of RESOURCE_NAMES) {
      // One line a record, compared as JSON (meta in the order it is rendered): a deep comparison a record takes far longer.
      const answered: string[] = [];
      const expected: string[] = [];
      for (const record of recordsOf(resource)) {
        const [detail, stored, storedOnDisk] = await Promise.all([
          source.get(resource, record.id),
          source.stored.get(resource, record.id, CTX),
          disk.stored.get(resource, record.id, CTX),
        ]);
        // A species' counts depend only on the record and its sources: worked out here, and read on disk too.
        const counts =
          resource === 'species' ? { synonyms_count: (record as any).synonyms.length, sources_count: 1 + (species_sources[record.id]?.length ?? 0) } : {};
        const meta = { last_modified: dataset.last_modified, ...counts };
        answered.push(JSON.stringify([detail, text(stored!.record.bytes), stored!.meta, stored!.etag, stored!.record.key, storedOnDisk!.meta]));
        expected.push(JSON.stringify([{ record, meta }, text(storedOnDisk!.record.bytes), meta, storedOnDisk!.etag, naiveKey(resource, record.id), meta]));
      }
      expect(answered, resource).toEqual(expected);
    }
    const notInSample = ['ABAB', 'Abelia', 'Acanthaceae'].find((id) => !RESOURCE_NAMES.some((r) => recordsOf(r).some((x) => x.id === id)))!;
    for (const resource of RESOURCE_NAMES) {
      const [first] = recordsOf(resource);
      for (const id of ['', 'NOSUCH', first!.id.toLowerCase(), first!.id.slice(0, -1), `${first!.id}0`, notInSample]) {
        if (recordsOf(resource).some((r) => r.id === id)) continue;
        expect(await source.get(resource, id), `${resource}/${id}`).toBeUndefined();
        expect(await source.stored.get(resource, id, CTX), `${resource}/${id}`).toBeUndefined();
      }
    }
  });

  it('lists every resource in the default order and by each sortable field both ways, page by page', async () => {
    const source = compiled();
    for (const resource of RESOURCE_NAMES) {
      for (const terms of ORDERS(resource)) await expectList(source, resource, inOrder(recordsOf(resource), terms), undefined, terms);
    }
  });

  it('finds in every resource, for search terms of every kind, the records a field of which holds the term', async () => {
    const source = compiled();
    for (const resource of RESOURCE_NAMES) {
      const records = recordsOf(resource);
      const oracle = naiveSearch(records, resource);
      const byId = new Map(records.map((r) => [r.id, r]));
      const orders = ORDERS(resource).slice(1);
      const found: number[] = [];
      for (const [i, q] of searchTerms().entries()) {
        const matches = oracle.naive(q).map((id) => byId.get(id)!);
        found.push(matches.length);
        await expectList(source, resource, inOrder(matches, []), q, []);
        const terms = orders[i % orders.length]!;
        await expectList(source, resource, inOrder(matches, terms), q, terms);
      }
      // The terms find many records, a few, and none.
      expect(Math.max(...found), resource).toBeGreaterThan(PAGE_SIZE);
      expect(
        found.some((n) => n > 0 && n < PAGE_SIZE),
        resource,
      ).toBe(true);
      expect(found, resource).toContain(0);
    }
  });

  it('lists the children of every parent, by search and order too, and nothing for an unknown parent', async () => {
    const source = compiled();
    for (const [child, parent, field] of SCOPES) {
      const children = (id: string) => recordsOf(child).filter((r) => (r as any)[field] === id);
      for (const { id } of recordsOf(parent)) await expectList(source, child, inOrder(children(id), []), undefined, [], { parent, id });
      // The parent with the most children, in every order, and searched.
      const [largest] = [...recordsOf(parent)].sort((a, b) => children(b.id).length - children(a.id).length);
      const scope = { parent, id: largest!.id };
      expect(children(scope.id).length, `${child} of ${parent} ${scope.id}`).toBeGreaterThan(child === 'species' ? PAGE_SIZE : 1);
      for (const terms of ORDERS(child)) await expectList(source, child, inOrder(children(scope.id), terms), undefined, terms, scope);
      const found = new Set(naiveSearch(children(scope.id), child).naive('a'));
      expect(found.size).toBeGreaterThan(0);
      for (const terms of ORDERS(child).slice(0, 3)) {
        await expectList(
          source,
          child,
          inOrder(
            [...found].map((id) => recordsOf(child).find((r) => r.id === id)!),
            terms,
          ),
          'a',
          terms,
          scope,
        );
      }
      // A term another child holds and the last child lacks: the matches run out before the children do.
      const inIds = inOrder(children(scope.id), []);
      const lastId = inIds.at(-1)!.id;
      const oracle = naiveSearch(children(scope.id), child);
      const pieces = inIds
        .slice(0, -1)
        .flatMap((r) => searchableFields(child, r).flatMap((f) => Array.from({ length: Math.max(0, f.length - 2) }, (_, i) => f.slice(i, i + 3))));
      const term = pieces.find((t) => !oracle.naive(t).includes(lastId));
      expect(term, `a term another child of ${scope.id} holds and ${lastId} lacks`).toBeDefined();
      const held = new Set(oracle.naive(term!));
      await expectList(
        source,
        child,
        inIds.filter((r) => held.has(r.id)),
        term,
        [],
        scope,
      );
      expect(await walk(source, child, undefined, [], { parent, id: 'NOSUCH' }), `${child} of an unknown ${parent}`).toBeUndefined();
    }
  });
});

/** Each child list: the child resource, its parent, and the field of the child naming the parent. */
const SCOPES: Array<[child: ResourceName, parent: ResourceName, field: string]> = [
  ['species', 'genus', 'genus_id'],
  ['species', 'plants', 'plant_id'],
  ['species', 'families', 'family_id'],
  ['genus', 'families', 'family_id'],
  ['plants', 'genus', 'genus_id'],
  ['plants', 'families', 'family_id'],
];

/**
 * Search terms of every kind: one unit, two, one gram, longer (grams that overlap, touch, repeat),
 * whole words in any letter case, with and without accents, spaces, names only in a synonym or in
 * another language, nothing, longer than any field of the sample, and across the end of one field
 * and the start of the next.
 */
function searchTerms(): string[] {
  const { species } = sample();
  const synonym = species.find((s) => s.synonyms.length > 0 && !s.scientific_name.includes(s.synonyms[0]!.split(' ')[1]!))!.synonyms[0]!;
  const french = species.find((s) => s.common_names.fr?.some((n) => /[^ -~]/.test(n)))!.common_names.fr!.find((n) => /[^ -~]/.test(n))!;
  // The end of one field and the start of the next (or the next but its first unit), of a few
  // records: found only if the index let a match span two fields, or let two fields' offsets overlap.
  const junctions = RESOURCE_NAMES.flatMap((r) =>
    naiveSearch(recordsOf(r), r)
      .withTwoFields.filter(({ fields: [a, b] }) => a!.length >= 3 && b!.length >= 3)
      .slice(0, 2)
      .flatMap(({ fields: [a, b] }) => [a!.slice(-3) + b!.slice(0, 3), a!.slice(-3) + b!.slice(1, 4)]),
  );
  const longest = RESOURCE_NAMES.flatMap((r) => recordsOf(r).flatMap((x) => searchableFields(r, x))).reduce((a, b) => (b.length > a.length ? b : a));
  return [
    'a',
    'Z',
    'é',
    '×',
    ' ',
    'ab',
    'AE',
    'ré',
    'a ',
    'fir',
    'ace',
    'ssp',
    'ceae',
    'abies',
    'ABIES',
    'grass',
    'needle',
    'Poaceae',
    'balsam fir',
    'ssp. ',
    ' × ',
    'var.',
    'parasita',
    'PARÁSITA',
    'Gaspé',
    'gaspe',
    'épinette',
    'epinette',
    'anana',
    'sisis',
    synonym.split(' ')[1]!,
    synonym,
    french,
    french.normalize('NFD').replace(/\p{M}/gu, '').toUpperCase(),
    'zzqxv',
    'qqq',
    `${longest} ${longest}`,
    ...junctions,
  ];
}
