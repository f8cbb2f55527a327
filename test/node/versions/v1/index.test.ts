/**
 * One test per v1 change module: the module applied alone to real fixture records, pages and
 * errors, compared with the v2 value it starts from.
 */
import { describe, expect, it, vi } from 'vitest';
import { parseConfig } from '../../../../src/config';
import { ENUMERATIONS } from '../../../../src/core/resources';
import { collectionEnvelope } from '../../../../src/core/envelope';
import { ApiError } from '../../../../src/core/api-error';
import { ERROR_CODES, type ErrorCode } from '../../../../src/core/error-codes';
import { problemJson } from '../../../../src/policies/render-error';
import { coreDocument } from '../../../../src/openapi/document';
import { versionOperations, versionResponses } from '../../../../src/openapi/edit';
import { enumerationPath } from '../../../../src/openapi/names';
import type { JsonSchema, OpenApiDocument } from '../../../../src/openapi/types';
import type { ListQuery, RecordSource } from '../../../../src/services/record-source';
import { v2 } from '../../../../src/versions';
import { bareDetail } from '../../../../src/versions/v1/bare-detail';
import { deprecation } from '../../../../src/versions/v1/deprecation';
import { flowerOrSeed } from '../../../../src/versions/v1/flower-or-seed';
import { v1 } from '../../../../src/versions/v1/index';
import { languageName, languageNames } from '../../../../src/versions/v1/language-names';
import { legacyCredentials } from '../../../../src/versions/v1/legacy-credentials';
import { legacyErrors } from '../../../../src/versions/v1/legacy-errors';
import { noCors } from '../../../../src/versions/v1/no-cors';
import { noEnumerations } from '../../../../src/versions/v1/no-enumerations';
import { pagesOfTen } from '../../../../src/versions/v1/pages-of-ten';
import { totalOnlyMeta } from '../../../../src/versions/v1/total-only-meta';
import { uppercaseEnums } from '../../../../src/versions/v1/uppercase-enums';
import type { JsonObject, PageResult } from '../../../../src/versions/version';
import { CORE_CREDENTIALS, walk } from '../../../../src/versions/walker';
import { bundledSource, dataset } from '../../../support/harness';

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
      'no-migration-plan',
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

  it("names the dataset's codes by its own table, whatever the runtime's ICU says (workerd names only en and fr)", () => {
    const of = vi.spyOn(Intl.DisplayNames.prototype, 'of').mockReturnValue('Elsewhere');
    try {
      expect(['en', 'fr', 'atj', 'chp', 'cr', 'mic', 'moe', 'oj'].map(languageName)).toEqual([
        'English',
        'French',
        'Atikamekw',
        'Chipewyan',
        'Cree',
        "Mi'kmaw",
        'Innu-aimun',
        'Ojibwa',
      ]);
    } finally {
      of.mockRestore();
    }
  });

  it('leaves common_names null as it is', () => {
    const record = { id: 'X', common_names: null };
    expect(languageNames.record!(record, 'species')).toBe(record);
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
      link: '<https://docs.botanical.example/migrating-to-v2>; rel="deprecation", </v2/migration-plan>; rel="https://docs.botanical.example/rels/migration-plan"',
    });
  });

  it('appends to a Link header already there', () => {
    const headers = new Headers({ Link: '</v1/species?page=2>; rel="next"' });
    change.headers!(headers);
    expect(headers.get('Link')).toBe(
      '</v1/species?page=2>; rel="next", <https://docs.botanical.example/migrating-to-v2>; rel="deprecation", </v2/migration-plan>; rel="https://docs.botanical.example/rels/migration-plan"',
    );
  });

  it('retires v1 at V1_SUNSET, and v2 never', () => {
    expect(change.retiredAt).toBe(Date.parse('2027-07-31T00:00:00Z'));
    expect(walk.retiredAt(V1)).toBe(change.retiredAt);
    expect(walk.retiredAt(v2)).toBeUndefined();
  });
});

/**
 * What each change writes into the v1 description (`/v1/openapi.json`), applied alone to the core
 * description: the schemas, parameters and security a v1 client reads there.
 */
describe('each change in the v1 description', () => {
  const core = coreDocument(config);
  const described = (change: { describe?: (doc: OpenApiDocument) => void }) => {
    const doc = structuredClone(core);
    change.describe!(doc);
    return doc;
  };
  const props = (doc: OpenApiDocument, schema: string) => doc.components.schemas[schema]!.properties as Record<string, JsonSchema>;

  it('legacy-credentials: the four legacy places as API-key schemes, after the core ones', () => {
    const doc = described(legacyCredentials);
    const secret = 'A project API key or a token, bare; legacy, so never in a browser.';
    expect(doc.components.securitySchemes).toMatchObject({
      XApiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: secret },
      XKey: { type: 'apiKey', in: 'header', name: 'x-key', description: secret },
      KeyQuery: { type: 'apiKey', in: 'query', name: 'key', description: `${secret} Never copied into links.` },
      TokenQuery: { type: 'apiKey', in: 'query', name: 'token', description: `${secret} Never copied into links.` },
    });
    expect(doc.security).toEqual([{ ApiKey: [] }, { Bearer: [] }, { OAuth2: [] }, { XApiKey: [] }, { XKey: [] }, { KeyQuery: [] }, { TokenQuery: [] }]);
  });

  it('bare-detail: each detail schema is its record schema', () => {
    const schemas = described(bareDetail).components.schemas;
    expect([schemas.SpeciesDetail, schemas.GenusDetail, schemas.FamilyDetail, schemas.PlantDetail]).toEqual([
      { $ref: '#/components/schemas/Species' },
      { $ref: '#/components/schemas/Genus' },
      { $ref: '#/components/schemas/Family' },
      { $ref: '#/components/schemas/Plant' },
    ]);
  });

  it('flower-or-seed: the species schema names flower_or_seed in the same place, required too; others untouched', () => {
    const doc = described(flowerOrSeed);
    const keys = Object.keys(props(core, 'Species')).map((k) => (k === 'fruit_or_seed' ? 'flower_or_seed' : k));
    expect(Object.keys(props(doc, 'Species'))).toEqual(keys);
    expect(props(doc, 'Species').flower_or_seed).toEqual(props(core, 'Species').fruit_or_seed);
    expect(doc.components.schemas.Species!.required).toEqual(keys);
    for (const name of ['Genus', 'Family', 'Plant']) expect(doc.components.schemas[name], name).toEqual(core.components.schemas[name]);
  });

  it('uppercase-enums: rank, status and duration patterns, examples and quoted tokens in UPPERCASE; no field added elsewhere', () => {
    const doc = described(uppercaseEnums);
    const species = props(doc, 'Species');
    expect(species.rank).toEqual({
      type: 'string',
      pattern: '^[^a-z]*$',
      description: 'Taxonomic rank (`SPECIES`, `VAR`, `SUBSP`, `F`).',
      examples: ['SPECIES'],
    });
    expect(species.status).toEqual({ type: 'string', pattern: '^[^a-z]*$', description: 'Taxonomic status (`ACCEPTED`).', examples: ['ACCEPTED'] });
    expect(species.duration).toEqual({
      type: ['array', 'null'],
      items: { type: 'string', pattern: '^[^a-z]*$' },
      description: 'Life spans (`ANNUAL`, `BIENNIAL`, `PERENNIAL`); null when unknown.',
    });
    expect(species.growth_rate).toEqual(props(core, 'Species').growth_rate);
    for (const name of ['Genus', 'Family', 'Plant']) expect(doc.components.schemas[name], name).toEqual(core.components.schemas[name]);
  });

  it('language-names: common_names keyed by any name, so described without the code pattern', () => {
    const doc = described(languageNames);
    expect(props(doc, 'Species').common_names).toEqual({
      type: 'object',
      description: 'Common names by the English name of the language (`French`); a code with no known English name stays a code.',
      additionalProperties: { type: 'array', items: { type: 'string' } },
    });
    for (const name of ['Genus', 'Family', 'Plant']) expect(doc.components.schemas[name], name).toEqual(core.components.schemas[name]);
  });

  it('pages-of-ten: collections of at most 10, per_page always 10, the page parameter says so', () => {
    const doc = described(pagesOfTen);
    for (const name of ['SpeciesCollection', 'GenusCollection', 'FamilyCollection', 'PlantCollection']) expect(props(doc, name).data!.maxItems, name).toBe(10);
    expect(props(doc, 'CollectionMeta').per_page).toEqual({ type: 'integer', const: 10, description: 'Always 10.' });
    expect(doc.components.parameters.page!.description).toBe('1-based page number; absent means 1. Pages hold 10 records.');
  });

  it('legacy-errors: every error response is a LegacyError with its status, redirects untouched', () => {
    const doc = described(legacyErrors);
    expect(doc.components.schemas.LegacyError).toEqual({
      type: 'object',
      description: 'A v1 error: the HTTP status and a sentence.',
      required: ['statusCode', 'message'],
      properties: { statusCode: { type: 'integer', minimum: 400, maximum: 599 }, message: { type: 'string' } },
      additionalProperties: false,
    });
    const errors = Object.keys(doc.components.responses).filter((name) => name.startsWith('Error'));
    expect(errors.length).toBeGreaterThan(10);
    for (const name of errors) {
      expect(doc.components.responses[name]!.content, name).toEqual({
        'application/json': {
          schema: {
            allOf: [{ $ref: '#/components/schemas/LegacyError' }, { type: 'object', properties: { statusCode: { const: Number(name.slice(5)) } } }],
          },
        },
      });
    }
    expect(doc.components.responses.Redirect301).toEqual(core.components.responses.Redirect301);
    expect(doc.components.responses.Redirect308).toEqual(core.components.responses.Redirect308);
  });
  it('total-only-meta: the collection meta requires and holds only total', () => {
    const meta = described(totalOnlyMeta).components.schemas.CollectionMeta!;
    expect(meta.required).toEqual(['total']);
    expect(meta.properties).toEqual({ total: { type: 'integer', minimum: 0, description: 'Matching records across all pages.' } });
  });

  it('no-enumerations: the enumeration paths are gone, the others stay', () => {
    const doc = described(noEnumerations);
    const gone = Object.keys(core.paths).filter((path) => !(path in doc.paths));
    expect(gone.sort()).toEqual(ENUMERATIONS.map(enumerationPath).sort());
    expect(gone.length).toBeGreaterThan(0);
  });

  it('no-cors: the version operations lose OPTIONS; the description and the token endpoint keep theirs', () => {
    const doc = described(noCors);
    expect(Object.keys(doc.paths['/species']!)).not.toContain('options');
    expect(doc.paths['/species']!.get).toBeDefined();
    expect(doc.paths['/genus/{id}']!.options).toBeUndefined();
    expect(core.paths['/species']!.options).toBeDefined();
    expect(doc.paths['/openapi.json']!.options).toEqual(core.paths['/openapi.json']!.options);
  });

  it('deprecation: the dates and the guide in the description, the three headers on every response, every operation deprecated with its 410', () => {
    const doc = described(deprecation(config));
    expect(doc.info.description).toBe(
      `**Deprecated** since 2026-01-01; retired on 2027-07-31, when every request answers 410. Move to v2: https://docs.botanical.example/migrating-to-v2\n\n${core.info.description}`,
    );
    expect(doc.components.headers).toMatchObject({
      Deprecation: {
        description: 'When this version was deprecated (RFC 9745): `@1767225600`.',
        required: true,
        schema: { type: 'string', pattern: '^@\\d+$' },
      },
      Sunset: { description: 'When this version stops (RFC 8594): `Sat, 31 Jul 2027 00:00:00 GMT`.', required: true, schema: { type: 'string' } },
      Link: {
        description:
          'The migration guide (`rel="deprecation"`) and the caller\'s own migration plan (`rel="https://docs.botanical.example/rels/migration-plan"`, read from v2 with `Authorization`): `<https://docs.botanical.example/migrating-to-v2>; rel="deprecation", </v2/migration-plan>; rel="https://docs.botanical.example/rels/migration-plan"`.',
        required: true,
        schema: { type: 'string', pattern: 'rel="deprecation"' },
      },
    });
    const refs = {
      Deprecation: { $ref: '#/components/headers/Deprecation' },
      Sunset: { $ref: '#/components/headers/Sunset' },
      Link: { $ref: '#/components/headers/Link' },
    };
    expect(doc.components.responses.Error404!.headers).toMatchObject({ ...core.components.responses.Error404!.headers, ...refs });
    const responses = versionResponses(doc);
    expect(responses.length).toBeGreaterThan(10);
    for (const response of responses) expect(response.headers).toMatchObject(refs);
    const operations = versionOperations(doc);
    expect(operations.length).toBeGreaterThan(10);
    for (const { path, method, operation } of operations) {
      expect(operation.deprecated, `${method} ${path}`).toBe(true);
      expect(operation.responses['410'], `${method} ${path}`).toEqual({ $ref: '#/components/responses/Error410' });
    }
    expect(doc.paths['/token']!.post!.deprecated).toBeUndefined();
  });
});
