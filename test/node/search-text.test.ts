/** Search text rules (CONTRACT section 18): control characters and empty folds refused, no match across fields. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resourceSpecs } from '../../src/services/bundled/compile/spec';
import type { ResourceName } from '../../src/services/record-source';
import { searchPositions } from '../../src/services/bundled/compiled/search';
import type { CompiledResource } from '../../src/services/bundled/compiled/resource';
import { searchTextSuite } from '../suites/search-text.suite';
import { mintDemoToken } from '../suites/tokens';
import { bundledSource, dataset, json, testApp } from '../support/harness';
import { fakesClosedAfterEach, sendJson, fakePage, upstreamGateway } from '../support/upstream';

// The oracle's own folding, from CONTRACT section 4 (case- and accent-insensitive).
const fold = (text: string) =>
  text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();

searchTextSuite(() => testApp());

const REFUSED: Array<[string, string]> = [
  ['%00', 'NUL (the old field joiner)'],
  ['balsamea%00balsam', 'NUL between two fields of ABBA'],
  ['a%09b', 'tab'],
  ['fir%0A', 'line feed'],
  ['%1F', 'U+001F'],
  ['%7F', 'DEL'],
  ['%C2%80', 'U+0080'],
  ['oak%C2%9F', 'U+009F'],
  ['%CC%81', 'a lone combining accent'],
  ['%CC%81%CC%88%CC%A7', 'only combining marks'],
  ['%20', 'a space'],
  ['+++', 'spaces written as +'],
  ['%20%CC%81%C2%A0', 'spaces, a mark and a no-break space'],
];

describe('a q with a control character, or folding to nothing, is 400 svc/invalidParameter', () => {
  const t = testApp();
  let token: Promise<string> | undefined;
  const bearer = async () => `Bearer ${await (token ??= mintDemoToken(t))}`;
  for (const [q, what] of REFUSED) {
    for (const path of ['/v2/species', '/v3/species', '/v2/genus/Abies/species']) {
      it(`${path}?q=${q} (${what})`, async () => {
        const res = await t.get(`${path}?q=${q}`, { Authorization: await bearer() });
        const body = await json(res);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(body.code, JSON.stringify(body)).toBe('svc/invalidParameter');
        expect(body.detail, JSON.stringify(body)).toMatch(/"q"/);
      });
    }
    it(`/v1/species?q=${q} (${what}): the legacy error shape`, async () => {
      const res = await t.get(`/v1/species?q=${q}`);
      const body = await json(res);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(body, JSON.stringify(body)).toEqual({ statusCode: 400, message: expect.stringMatching(/"q"/) });
    });
  }

  it('accepts what stays: letters with accents, inner and outer spaces, signs', async () => {
    for (const q of ['%C3%A9pin', 'balsam%20fir', '%20fir', '%C3%97', 'ssp.']) {
      const res = await t.get(`/v2/species?q=${q}`);
      expect(res.status, `${q}: ${await res.clone().text()}`).toBe(200);
    }
  });

  const fake = fakesClosedAfterEach();
  it('holds in upstream mode, before the upstream is called', async () => {
    const upstream = await fake((_req, res) => sendJson(res, fakePage()));
    const gateway = upstreamGateway(upstream.url);
    for (const [q] of REFUSED) {
      const res = await gateway.get(`/v2/species?q=${q}`);
      expect(res.status, q).toBe(400);
      expect((await json(res)).code).toBe('svc/invalidParameter');
    }
    expect(upstream.seen, 'no refused q reaches the upstream').toEqual([]);
    expect((await gateway.get('/v2/species?q=fir')).status).toBe(200);
  });
});

describe('a match never spans two fields: the compiled search equals a per-field oracle', () => {
  const fieldsOf = (resource: ResourceName, record: unknown) =>
    resourceSpecs(dataset)
      [resource].searchable(record as never)
      .filter((f): f is string => !!f)
      .map(fold);

  const idOrder = new Intl.Collator('en', { numeric: true });
  const byIdOrder = (ids: string[]) => [...ids].sort(idOrder.compare);
  // Each species' folded fields, each on its own (folded once: the oracle runs hundreds of times).
  const folded = dataset.species.map((r) => ({ id: r.id, fields: fieldsOf('species', r) }));
  const withTwoFields = folded.filter((r) => r.fields.length >= 2);

  /** Every species id holding folded `q` within one field. */
  function naive(q: string): string[] {
    const needle = fold(q);
    return byIdOrder(folded.filter((r) => r.fields.some((f) => f.includes(needle))).map((r) => r.id));
  }

  // A record's position in the compiled dataset is its rank in id order.
  const idAt = byIdOrder(dataset.species.map((r) => r.id));
  // The compiled species of the shared source (the matcher itself: paging every result through the API is slow).
  const compiledSpecies = () => (bundledSource() as unknown as { resources: Record<ResourceName, CompiledResource> }).resources.species;

  /** The ids the compiled search index gives for `q`. */
  async function compiled(q: string): Promise<string[]> {
    return Array.from(await searchPositions(compiledSpecies(), q), (at) => idAt[at]!);
  }

  /** The end of one field and the start of the next of a real record, joined as a caller would guess. */
  const acrossFields = fc
    .record({ i: fc.nat(), head: fc.integer({ min: 1, max: 4 }), tail: fc.integer({ min: 1, max: 4 }), joiner: fc.constantFrom(' ', '', ', ', '  ') })
    .map(({ i, head, tail, joiner }) => {
      const [a, b] = withTwoFields[i % withTwoFields.length]!.fields;
      return `${a!.slice(-head)}${joiner}${b!.slice(0, tail)}`;
    });
  /** A piece of one real field, changed in case. */
  const insideField = fc
    .record({ i: fc.nat(), from: fc.nat(), length: fc.integer({ min: 1, max: 8 }), upper: fc.boolean() })
    .map(({ i, from, length, upper }) => {
      const fields = folded[i % folded.length]!.fields;
      const field = fields[i % fields.length]!;
      const at = from % field.length;
      const piece = field.slice(at, at + length);
      return upper ? piece.toUpperCase() : piece;
    });
  /** Short made-up text of letters seen in the data, spaces, signs and accents. */
  const madeUp = fc.string({ unit: fc.constantFrom(...'aeiourstln .-×\u00e9\u0301'), minLength: 1, maxLength: 5 });
  const query = fc.oneof(acrossFields, insideField, madeUp).filter((q) => fold(q).trim() !== '');

  it('for real and random queries (fixed seed), species ids equal the oracle', async () => {
    const queries = fc.sample(query, { numRuns: 300, seed: 20261123 });
    for (const q of queries) expect(await compiled(q), JSON.stringify(q)).toEqual(naive(q));
  });

  it('a needle whose covering grams repeat (the same gram at two offsets) needs it at both', async () => {
    // "anana": "ana" at offsets 0 and 2; "sasas", "inini" and "erere" likewise; "alalal" and "ississ" at 0 and 3.
    for (const q of ['anana', 'sasas', 'inini', 'alalal', 'erere', 'ississ']) {
      const ids = await compiled(q);
      expect(ids, q).toEqual(naive(q));
      // The repeated gram alone is found far more often than the needle.
      expect(naive(fold(q).slice(0, 3)).length, q).toBeGreaterThan(ids.length);
    }
  });

  it('a needle spelling the first key of a chunk of the search index answers as the oracle', async () => {
    // Keys: three units packed below 2^48; two units from 2^48; one unit from 2^48 + 2^32.
    const text = (key: number) =>
      key >= 0x1000100000000
        ? String.fromCharCode(key - 0x1000100000000)
        : key >= 0x1000000000000
          ? String.fromCharCode(Math.floor((key - 0x1000000000000) / 0x10000), (key - 0x1000000000000) % 0x10000)
          : String.fromCharCode(Math.floor(key / 0x100000000), Math.floor(key / 0x10000) % 0x10000, key % 0x10000);
    const fences = compiledSpecies().meta.gramFences;
    const needles = fences.filter((_, k) => k % 25 === 0 || k === fences.length - 1).map(text);
    expect(needles.length).toBeGreaterThan(20);
    for (const q of needles) {
      const ids = await compiled(q);
      expect(ids, JSON.stringify(q)).toEqual(naive(q));
      expect(ids.length, JSON.stringify(q)).toBeGreaterThan(0);
    }
  });

  it('the end of one field plus the start of the next matches only where one field holds it (ABBA)', async () => {
    // ABBA: scientific_name "Abies balsamea", common_name "balsam fir": "balsamea balsam" spans the two.
    const ids = await compiled('balsamea balsam');
    expect(ids).toEqual(naive('balsamea balsam'));
    expect(ids).not.toContain('ABBA');
    expect(await compiled('abies balsamea')).toContain('ABBA');
    // And through the API, the same.
    const body = await json(await testApp().get('/v2/species?q=balsamea%20balsam'));
    expect(body.meta.total).toBe(ids.length);
  });
});
