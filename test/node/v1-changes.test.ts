/**
 * One test per v1 change module: the module applied alone to real fixture records, pages and
 * errors, compared with the v2 value it starts from.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config';
import { collectionEnvelope } from '../../src/core/envelope';
import { ApiError } from '../../src/errors/api-error';
import { ERROR_CODES, type ErrorCode } from '../../src/errors/codes';
import { problemJson } from '../../src/errors/render';
import type { ListQuery, RecordSource } from '../../src/services/record-source';
import { v2 } from '../../src/versions';
import { bareDetail } from '../../src/versions/v1/bare-detail';
import { deprecation } from '../../src/versions/v1/deprecation';
import { flowerOrSeed } from '../../src/versions/v1/flower-or-seed';
import { v1 } from '../../src/versions/v1/index';
import { languageName, languageNames } from '../../src/versions/v1/language-names';
import { legacyCredentials } from '../../src/versions/v1/legacy-credentials';
import { legacyErrors } from '../../src/versions/v1/legacy-errors';
import { noCors } from '../../src/versions/v1/no-cors';
import { noEnumerations } from '../../src/versions/v1/no-enumerations';
import { pagesOfTen } from '../../src/versions/v1/pages-of-ten';
import { totalOnlyMeta } from '../../src/versions/v1/total-only-meta';
import { uppercaseEnums } from '../../src/versions/v1/uppercase-enums';
import type { JsonObject, PageResult } from '../../src/versions/version';
import { CORE_CREDENTIALS, walk } from '../../src/versions/walker';
import { bundledSource, dataset } from '../support/harness';

const config = parseConfig({});
const V1 = v1(config);
const asJson = (r: object) => r as unknown as JsonObject;
const species = dataset.species.map(asJson);
const otherRecords = [...dataset.families, ...dataset.genus, ...dataset.plants].map(asJson);

/** Whether every field but `except` is the very same value (no copy, no change). */
const untouchedBut = (v1Record: JsonObject, v2Record: JsonObject, except: string[]) =>
  Object.keys(v2Record).every((key) => except.includes(key) || v1Record[key] === v2Record[key]);
const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Ids of the records for which `ok(v1, v2)` fails, so one assertion shows every offender. */
const offenders = (records: JsonObject[], ok: (v2Record: JsonObject) => boolean) => records.filter((r) => !ok(r)).map((r) => r.id);

describe('the v1 version', () => {
  it('is one named, described change per row of the differences table, in its order, then no CORS and the deprecation', () => {
    expect(V1.bases).toEqual(['/v1', '/api/v1']);
    expect(V1.parent).toBeUndefined();
    expect(V1.changes.map((c) => c.name)).toEqual([
      'legacy-credentials',
      'bare-detail',
      'flower-or-seed',
      'uppercase-enums',
      'language-names',
      'pages-of-ten',
      'total-only-meta',
      'legacy-errors',
      'no-enumerations',
      'no-cors',
      'deprecation',
    ]);
    for (const change of V1.changes) expect(change.description, change.name).toMatch(/^[^\n]+[.]$/);
  });
});

describe('legacy-credentials', () => {
  it('adds x-api-key, x-key, ?key and ?token after the Authorization header, keeping both schemes', () => {
    expect(walk.credentials(v2)).toEqual({ places: ['authorization'], schemes: ['apikey', 'bearer'] });
    expect(legacyCredentials.credentials!(CORE_CREDENTIALS)).toEqual({
      places: ['authorization', 'x-api-key', 'x-key', 'query:key', 'query:token'],
      schemes: ['apikey', 'bearer'],
    });
    expect(walk.credentials(V1)).toEqual(legacyCredentials.credentials!(CORE_CREDENTIALS));
  });
});

describe('bare-detail', () => {
  it('returns the record of the v2 detail envelope itself', async () => {
    const found = (await (bundledSource() as RecordSource).get('species', 'ABBA', { requestId: 't' }))!;
    const envelope = { data: asJson(found.record), meta: found.meta };
    expect(found.meta.last_modified).toBe('2026-03-18T00:00:00Z');
    expect(bareDetail.detail!(envelope)).toBe(envelope.data);
  });
});

describe('flower-or-seed', () => {
  it('renames fruit_or_seed on all 32,800 species, in place in key order, values and input untouched', () => {
    const bad = offenders(species, (record) => {
      const out = flowerOrSeed.record!(record, 'species');
      return (
        sameJson(
          Object.keys(out),
          Object.keys(record).map((k) => (k === 'fruit_or_seed' ? 'flower_or_seed' : k)),
        ) &&
        out.flower_or_seed === record.fruit_or_seed &&
        untouchedBut(out, record, ['fruit_or_seed']) &&
        'fruit_or_seed' in record
      );
    });
    expect(bad).toEqual([]);
    expect(flowerOrSeed.record!(species[0]!, 'species')).toMatchObject({ flower_or_seed: { color: null, conspicuous: null } });
  });

  it('leaves records without the block as they are', () => {
    for (const record of otherRecords.slice(0, 500)) expect(flowerOrSeed.record!(record, 'genus')).toBe(record);
  });
});

describe('uppercase-enums', () => {
  it('uppercases rank, status and every duration token on all 32,800 species, nothing else', () => {
    const bad = offenders(species, (record) => {
      const out = uppercaseEnums.record!(record, 'species');
      return (
        out.rank === (record.rank as string).toUpperCase() &&
        out.status === (record.status as string).toUpperCase() &&
        sameJson(out.duration, (record.duration as string[] | null)?.map((d) => d.toUpperCase()) ?? null) &&
        untouchedBut(out, record, ['rank', 'status', 'duration'])
      );
    });
    expect(bad).toEqual([]);
    const alpi2 = uppercaseEnums.record!(asJson(dataset.species.find((s) => s.id === 'ALPI2')!), 'species');
    expect([alpi2.rank, alpi2.status, alpi2.duration]).toEqual(['SPECIES', 'ACCEPTED', ['ANNUAL', 'BIENNIAL', 'PERENNIAL']]);
    // the core's records are shared by every request: never mutated
    expect(dataset.species.every((s) => s.rank === s.rank.toLowerCase())).toBe(true);
  });

  it('applies to any resource by field, and leaves records without the fields alone', () => {
    const plantLike = { id: 'X', rank: 'genus', duration: null };
    expect(uppercaseEnums.record!(plantLike, 'plants')).toEqual({ id: 'X', rank: 'GENUS', duration: null });
    for (const record of otherRecords) expect(uppercaseEnums.record!(record, 'families')).toBe(record);
  });
});

describe('language-names', () => {
  it('names every language code of the fixture in English, keeping codes ICU cannot name', () => {
    const codes = [...new Set(dataset.species.flatMap((s) => Object.keys(s.common_names)))].sort();
    expect(Object.fromEntries(codes.map((c) => [c, languageName(c)]))).toEqual({
      aaq: 'aaq', // Eastern Abnaki
      alg: 'alg', // Algonquian languages
      alq: 'alq', // Algonquin
      atj: 'Atikamekw',
      chp: 'Chipewyan',
      ciw: 'ciw', // Chippewa
      cr: 'Cree',
      en: 'English',
      fr: 'French',
      mic: "Mi'kmaw",
      moe: 'Innu-aimun',
      oj: 'Ojibwa',
      pgm: 'pgm', // Pangwali
    });
  });

  it('rekeys common_names of all 32,800 species without losing, reordering or adding a name', () => {
    const bad = offenders(species, (record) => {
      const names = record.common_names as Record<string, string[]>;
      const out = languageNames.record!(record, 'species');
      const v1Names = out.common_names as Record<string, string[]>;
      return (
        sameJson(Object.keys(v1Names), Object.keys(names).map(languageName)) &&
        sameJson(Object.values(v1Names), Object.values(names)) &&
        untouchedBut(out, record, ['common_names'])
      );
    });
    expect(bad).toEqual([]);
    expect(languageNames.record!(asJson(dataset.species.find((s) => s.id === 'ACNE2')!), 'species').common_names).toMatchObject({
      English: ['boxelder', 'box elder'],
      Ojibwa: ["adjagobi'mûk"],
    });
  });

  it('merges two codes of one language (he, iw) without repeats; keeps malformed codes', () => {
    const out = languageNames.record!({ id: 'X', common_names: { he: ['a', 'b'], 'x!': ['c'], iw: ['b', 'd'] } }, 'species');
    expect(out.common_names).toEqual({ Hebrew: ['a', 'b', 'd'], 'x!': ['c'] });
    for (const record of otherRecords.slice(0, 500)) expect(languageNames.record!(record, 'genus')).toBe(record);
  });
});

describe('pages-of-ten', () => {
  const source: RecordSource = bundledSource();
  const query = (page: number): ListQuery => ({ q: 'oak', order: [{ field: 'scientific_name', direction: 'desc' }], page });

  it('serves v1 page p as records (p-1)*10 .. p*10-1 of the v2 result, from v2 page ceil(p/2)', async () => {
    const v2Ids: string[] = [];
    for (let page = 1; page <= 16; page++) v2Ids.push(...(await source.list('species', query(page), undefined, { requestId: 't' }))!.items.map((r) => r.id));
    expect(v2Ids).toHaveLength(316);
    for (let p = 1; p <= 33; p++) {
      const core = pagesOfTen.listQuery!(query(p));
      expect(core).toEqual({ ...query(p), page: Math.ceil(p / 2) });
      const corePage = (await source.list('species', core, undefined, { requestId: 't' }))!;
      const v1Page = pagesOfTen.page!({ ...corePage, items: corePage.items.map(asJson) }, query(p));
      expect(
        v1Page.items.map((r) => r.id),
        `v1 page ${p}`,
      ).toEqual(v2Ids.slice((p - 1) * 10, p * 10));
      expect(v1Page).toMatchObject({ total: 316, page: p, perPage: 10 });
    }
  });

  it('gives the core envelope v1 page numbers and the 404 past the last v1 page', () => {
    const page = (p: number, total: number): PageResult => ({ items: [], total, page: p, perPage: 10 });
    const url = 'https://localhost/v1/species?q=oak';
    expect(collectionEnvelope(page(32, 316), '/v1/species', url).links).toEqual({
      self: '/v1/species?q=oak&page=32',
      first: '/v1/species?q=oak&page=1',
      prev: '/v1/species?q=oak&page=31',
      last: '/v1/species?q=oak&page=32',
    });
    expect(() => collectionEnvelope(page(33, 316), '/v1/species', url)).toThrow(/past the last page \(32\)/);
    expect(collectionEnvelope(page(1, 0), '/v1/species', url).links).toEqual({ self: '/v1/species?q=oak&page=1' });
    expect(() => collectionEnvelope(page(2, 0), '/v1/species', url)).toThrow(ApiError);
    // The legacy credentials a v1 caller may put in the query never reach a link; other names stay.
    const withCredentials = 'https://localhost/v1/species?key=s3cret&q=oak&token=t0ken&keys=1&page=2';
    expect(collectionEnvelope(page(2, 316), '/v1/species', withCredentials).links).toMatchObject({ self: '/v1/species?q=oak&keys=1&page=2' });
  });
});

describe('total-only-meta', () => {
  it('keeps only total of the v2 collection meta; data and links are the v2 ones', async () => {
    const page = (await (bundledSource() as RecordSource).list('genus', { q: 'grass', order: [], page: 1 }, undefined, { requestId: 't' }))!;
    const body = collectionEnvelope({ ...page, items: page.items.map(asJson) }, '/v2/genus', 'https://localhost/v2/genus?q=grass');
    expect(body.meta).toEqual({ total: 43, per_page: 20, current_page: 1, last_page: 3 });
    const out = totalOnlyMeta.collection!(body);
    expect(out).toEqual({ data: body.data, links: body.links, meta: { total: 43 } });
    expect(out.data).toBe(body.data);
  });
});

describe('legacy-errors', () => {
  it.each(Object.keys(ERROR_CODES) as ErrorCode[])('%s: {statusCode, message} with the problem status', (code) => {
    for (const error of [new ApiError(code, `Something about ${code}.`), new ApiError(code)]) {
      const problem = problemJson(error, config, 'req-1').body as JsonObject;
      expect(legacyErrors.error!(error)).toEqual({
        contentType: 'application/json',
        body: { statusCode: problem.status, message: problem.detail ?? problem.title },
      });
    }
  });

  it('renders v1 errors by this change and v2 errors as problems', () => {
    const error = new ApiError('svc/notFound', 'No species record has id "X".');
    expect(walk.error(V1, error)).toEqual(legacyErrors.error!(error));
    expect(walk.error(v2, error)).toBeUndefined();
  });
});

describe('no-enumerations', () => {
  it('removes the enumeration routes from v1 only', () => {
    expect(noEnumerations.withoutEnumerations).toBe(true);
    expect(walk.hasEnumerations(v2)).toBe(true);
    expect(walk.hasEnumerations(V1)).toBe(false);
  });
});

describe('no-cors', () => {
  it('keeps browsers out of v1 only', () => {
    expect(noCors.withoutCors).toBe(true);
    expect(walk.answersCors(v2)).toBe(true);
    expect(walk.answersCors(V1)).toBe(false);
  });
});

describe('deprecation', () => {
  const change = deprecation(config);

  it('adds Deprecation (RFC 9745), Sunset (RFC 8594) and the guide link, which v2 lacks', () => {
    const headers = new Headers({ 'Content-Type': 'application/json' });
    walk.headers(v2, headers);
    expect([...headers.keys()]).toEqual(['content-type']);
    change.headers!(headers);
    expect(Object.fromEntries(headers)).toEqual({
      'content-type': 'application/json',
      deprecation: '@1767225600',
      sunset: 'Sat, 31 Jul 2027 00:00:00 GMT',
      link: '<https://docs.botanical.example/migrating-to-v2>; rel="deprecation"',
    });
  });

  it('appends to a Link header already there', () => {
    const headers = new Headers({ Link: '</v1/species?page=2>; rel="next"' });
    change.headers!(headers);
    expect(headers.get('Link')).toBe('</v1/species?page=2>; rel="next", <https://docs.botanical.example/migrating-to-v2>; rel="deprecation"');
  });

  it('retires v1 at V1_SUNSET, and v2 never', () => {
    expect(change.retiredAt).toBe(Date.parse('2027-07-31T00:00:00Z'));
    expect(walk.retiredAt(V1)).toBe(change.retiredAt);
    expect(walk.retiredAt(v2)).toBeUndefined();
  });
});
