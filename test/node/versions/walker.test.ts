/**
 * What each served version is, as the walker tells the policies and routes that ask: its
 * credential places and schemes, whether it has the enumeration routes, answers CORS, is a closed
 * preview, rewrites records or details, writes headers, when it retires and whether it has
 * brownouts. The walker works each version's facts out once and keeps them by version, so each
 * test builds the versions it asks about (shallow copies of the shared v2 and v3): each works the
 * facts out itself, and a fault in that work shows in the test that reads the fact. What the same
 * facts make of requests is `version-walker.test.ts` and the suites.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig, type ConfigVars } from '../../../src/config';
import { ApiError } from '../../../src/core/api-error';
import { coreDocument } from '../../../src/openapi/document';
import { buildVersions } from '../../../src/versions';
import { v1 as buildV1, v1 } from '../../../src/versions/v1';
import { bareDetail } from '../../../src/versions/v1/bare-detail';
import type { JsonObject, Version, VersionChange } from '../../../src/versions/version';
import { CORE_CREDENTIALS, versionResolver, walk } from '../../../src/versions/walker';
import { DEFAULT_V1_HEADERS } from '../../suites/v1.suite';
import { json, testApp } from '../../support/harness';

describe('what each served version is, as the walker tells the policies and routes', () => {
  const served = (env: ConfigVars = {}) => {
    const [v2, v3, v1] = buildVersions(parseConfig(env)) as [Version, Version, Version];
    return { v2: { ...v2 }, v3: { ...v3 }, v1 };
  };
  const query = { q: 'oak', order: [], page: 3 };

  it('v2 is the core: both schemes in Authorization, enumerations, CORS, the core shapes, no headers, retirement or preview', () => {
    const { v2 } = served();
    expect(walk.credentials(v2)).toEqual(CORE_CREDENTIALS);
    expect([walk.hasEnumerations(v2), walk.answersCors(v2), walk.previewOnly(v2)]).toEqual([true, true, false]);
    expect([walk.rewritesRecords(v2), walk.rewritesDetails(v2), walk.hasHeaders(v2)]).toEqual([false, false, false]);
    expect([walk.retiredAt(v2), walk.hasBrownouts(v2), walk.error(v2, new ApiError('svc/notFound'))]).toEqual([undefined, false, undefined]);
    expect(walk.listQuery(v2, query)).toEqual(query);
  });

  it('v3: Bearer tokens only, for the preview; otherwise what v2 is', () => {
    const { v3 } = served();
    expect(walk.credentials(v3)).toEqual({ places: ['authorization'], schemes: ['bearer'] });
    expect(walk.previewOnly(v3)).toBe(true);
    expect([walk.hasEnumerations(v3), walk.answersCors(v3)]).toEqual([true, true]);
    expect([walk.rewritesRecords(v3), walk.rewritesDetails(v3), walk.hasHeaders(v3)]).toEqual([false, false, false]);
    expect([walk.retiredAt(v3), walk.hasBrownouts(v3), walk.error(v3, new ApiError('svc/notFound'))]).toEqual([undefined, false, undefined]);
  });

  it('v1: five places, no enumerations, no CORS, its own records, details, errors and headers, retired at V1_SUNSET', () => {
    const { v1 } = served();
    expect(walk.credentials(v1)).toEqual({ places: ['authorization', 'x-api-key', 'x-key', 'query:key', 'query:token'], schemes: ['apikey', 'bearer'] });
    expect([walk.hasEnumerations(v1), walk.answersCors(v1), walk.previewOnly(v1)]).toEqual([false, false, false]);
    expect([walk.rewritesRecords(v1), walk.rewritesDetails(v1), walk.hasHeaders(v1)]).toEqual([true, true, true]);
    expect(walk.error(v1, new ApiError('svc/notFound', 'No such species.'))).toMatchObject({
      contentType: 'application/json',
      body: { statusCode: 404, message: 'No such species.' },
    });
    const headers = new Headers();
    walk.headers(v1, headers);
    expect(Object.fromEntries(headers)).toEqual({
      deprecation: DEFAULT_V1_HEADERS.deprecation,
      sunset: DEFAULT_V1_HEADERS.sunset,
      link: DEFAULT_V1_HEADERS.link,
    });
    expect(walk.retiredAt(v1)).toBe(Date.parse('2027-07-31T00:00:00Z'));
    expect(walk.listQuery(v1, { ...query, page: 6 }).page).toBe(3);
  });

  it('v1 has brownouts only when V1_BROWNOUTS names some', () => {
    expect(walk.hasBrownouts(served().v1)).toBe(false);
    const { v1 } = served({ V1_BROWNOUTS: '2027-05-04T14:00:00Z/PT1H' });
    expect(walk.hasBrownouts(v1)).toBe(true);
    expect(walk.brownoutAt(v1, Date.parse('2027-05-04T14:30:00Z'))).toEqual({
      start: Date.parse('2027-05-04T14:00:00Z'),
      end: Date.parse('2027-05-04T15:00:00Z'),
    });
  });

  it('a version that only unwraps details rewrites details but not records', () => {
    const bare: Version = { name: 'bare', bases: ['/bare'], changes: [bareDetail] };
    expect([walk.rewritesRecords(bare), walk.rewritesDetails(bare)]).toEqual([false, true]);
  });

  it('a version rehearsing a retirement it has no date for yet has brownouts all the same', () => {
    const interval = { start: Date.parse('2027-01-01T00:00:00Z'), end: Date.parse('2027-01-01T01:00:00Z') };
    const rehearsing: Version = {
      name: 'vr',
      bases: ['/vr'],
      changes: [{ name: 'rehearsal', description: 'Brownouts before a sunset is set.', brownouts: [interval] }],
    };
    expect([walk.retiredAt(rehearsing), walk.hasBrownouts(rehearsing)]).toEqual([undefined, true]);
    const none: Version = { ...rehearsing, changes: [{ ...rehearsing.changes[0]!, brownouts: [] }] };
    expect(walk.hasBrownouts(none)).toBe(false);
  });

  it('a request outside every version (a probe, the token endpoint): no headers, retirement, brownouts or error shape of a version', () => {
    const headers = new Headers();
    walk.headers(undefined, headers);
    expect([...headers]).toEqual([]);
    expect([walk.hasHeaders(undefined), walk.answersCors(undefined), walk.hasBrownouts(undefined)]).toEqual([false, false, false]);
    expect([walk.retiredAt(undefined), walk.brownoutAt(undefined, Date.now()), walk.error(undefined, new ApiError('svc/notFound'))]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('v3 describes Bearer as its only scheme and says it is a closed preview', () => {
    const { v2, v3 } = served();
    const core = coreDocument(parseConfig({}));
    const [two, three] = [walk.describe(v2, structuredClone(core)), walk.describe(v3, structuredClone(core))];
    expect(two.security.some((r) => 'ApiKey' in r)).toBe(true);
    expect(three.security).toEqual(two.security.filter((r) => !('ApiKey' in r)));
    expect(three.security.length).toBeGreaterThan(0);
    expect(three.info.description).toBe(
      `**Closed preview**: only Bearer credentials enrolled in the preview may call; others get 403.\n\n${two.info.description}`,
    );
  });
});

describe('a chain of changes, as a version derived from another would have', () => {
  // Each change leaves its name on what passes through it, so the order the walker applies them shows.
  const marking = (name: string, extra: Partial<VersionChange> = {}): VersionChange => ({
    name,
    description: `Leaves ${name} on what passes through.`,
    listQuery: (query) => ({ ...query, q: `${query.q}>${name}` }),
    page: (page, requested) => ({ ...page, items: [...page.items, { by: name, q: requested.q }] }),
    record: (record, resource) => ({ ...record, trail: `${record.trail}>${name}:${resource}` }),
    collection: (body) => ({ ...body, trail: `${body.trail}>${name}` }),
    detail: (body) => ({ ...body, trail: `${body.trail}>${name}` }),
    headers: (headers) => headers.append('Trail', name),
    describe: (doc) => void (doc.info.description += `>${name}`),
    ...extra,
  });
  const parent: Version = {
    name: 'va',
    bases: ['/va'],
    changes: [marking('a1'), marking('a2', { error: () => ({ contentType: 'text/a2', body: 'a2' }), retiredAt: Date.parse('2027-03-01T00:00:00Z') })],
  };
  const child = (): Version => ({
    name: 'vb',
    bases: ['/vb'],
    parent,
    changes: [marking('b1', { retiredAt: Date.parse('2027-09-01T00:00:00Z') }), marking('b2')],
  });
  const start: JsonObject = { trail: 'core' };

  it("applies response hooks from the core outward: the parent's changes first, then the version's, each in its order", () => {
    const vb = child();
    expect(walk.record(vb, start, 'genus').trail).toBe('core>a1:genus>a2:genus>b1:genus>b2:genus');
    expect([walk.collection(vb, start).trail, walk.detail(vb, start).trail]).toEqual(['core>a1>a2>b1>b2', 'core>a1>a2>b1>b2']);
    const page = walk.page(vb, { items: [], total: 0, page: 1, perPage: 20 }, { q: 'asked', order: [], page: 1 });
    expect(page.items).toEqual(['a1', 'a2', 'b1', 'b2'].map((by) => ({ by, q: 'asked' })));
    const headers = new Headers();
    walk.headers(vb, headers);
    expect(headers.get('Trail')).toBe('a1, a2, b1, b2');
    const core = coreDocument(parseConfig({}));
    const doc = walk.describe(vb, { ...core, info: { ...core.info, description: 'core' } });
    expect(doc.info.description).toBe('core>a1>a2>b1>b2');
  });

  it("applies request hooks from the caller's version in, and renders errors in the outermost shape there is", () => {
    const vb = child();
    expect(walk.listQuery(vb, { q: 'asked', order: [], page: 1 }).q).toBe('asked>b2>b1>a2>a1');
    expect(walk.error(vb, new ApiError('svc/notFound'))).toEqual({ contentType: 'text/a2', body: 'a2' });
    const outer: Version = { ...child(), changes: [marking('b1', { error: () => ({ contentType: 'text/b1', body: 'b1' }) })] };
    expect(walk.error(outer, new ApiError('svc/notFound'))).toEqual({ contentType: 'text/b1', body: 'b1' });
  });

  it("retires at the earliest retirement in its chain, its parent's here", () => {
    expect(walk.retiredAt(child())).toBe(Date.parse('2027-03-01T00:00:00Z'));
  });
});

describe('which version a path belongs to', () => {
  const versions = buildVersions(parseConfig({}));
  const named = (path: string) => {
    const found = versionResolver(versions)(path);
    return found && [found.version.name, found.base];
  };

  it('a base itself and every path below it; the base the caller used is kept', () => {
    expect(['/v2', '/v2/species', '/v3/species/ABBA', '/v1', '/api/v1', '/api/v1/species'].map(named)).toEqual([
      ['v2', '/v2'],
      ['v2', '/v2'],
      ['v3', '/v3'],
      ['v1', '/v1'],
      ['v1', '/api/v1'],
      ['v1', '/api/v1'],
    ]);
  });

  it('not a path that only begins like a base, nor one outside every version', () => {
    for (const path of ['/v10/species', '/v1species', '/api/v1x', '/api', '/healthz', '/', '/v']) expect(named(path), path).toBeUndefined();
  });

  it('the first version listed that has the base', () => {
    const [v2] = versions as [Version];
    const again = buildV1(parseConfig({}));
    expect(versionResolver([again, ...versions])('/v1/species')?.version).toBe(again);
    expect(versionResolver([...versions, { ...v2, name: 'shadow' }])('/v2/species')?.version.name).toBe('v2');
  });
});

/**
 * The version walker: which version a path belongs to, and what one request of each kind gets
 * through v1's chain of changes (one page, one detail, one error), compared with v2 for the same
 * request. The whole v1 facade is `v1-facade.test.ts`; these are the few requests that show each
 * hook of the walker at work. Last, a version derived from v1, as an older one would be added:
 * the order in which the walker applies a chain shows only once two changes share a hook.
 */
const t = testApp();

describe('which version a path belongs to', () => {
  it.each(['/v1', '/api/v1'])('%s itself is v1: the v1 404 with the deprecation headers', async (path) => {
    const res = await t.get(path);
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(404);
    expect(res.headers.get('Content-Type')).toBe('application/json');
    expect(body).toEqual({ statusCode: 404, message: `No resource at ${path}.` });
    expect(res.headers.get('Deprecation')).toBe(DEFAULT_V1_HEADERS.deprecation);
  });

  it.each(['/v10/species', '/v1species', '/api/v1x/species', '/api/v1species/ABBA'])('%s only begins like a v1 base: a 404 problem, not v1', async (path) => {
    const res = await t.get(path);
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(404);
    expect(res.headers.get('Content-Type')).toBe('application/problem+json');
    expect(body).toMatchObject({ code: 'svc/notFound', detail: `No resource at ${path}.` });
    expect(res.headers.get('Deprecation')).toBeNull();
  });
});

describe('one request of each kind through the v1 chain, against v2', () => {
  it('a page: v1 page 3 is the first half of v2 page 2, records in v1 shape, meta only the total, links in v1 pages', async () => {
    const [v1, v2] = await Promise.all([json(await t.get('/v1/species?q=oak&page=3')), json(await t.get('/v2/species?q=oak&page=2'))]);
    expect(v1.data.map((r: any) => r.id)).toEqual(v2.data.slice(0, 10).map((r: any) => r.id));
    v1.data.forEach((record: any, i: number) => {
      const ref = v2.data[i];
      expect([record.rank, record.status, record.flower_or_seed], record.id).toEqual([ref.rank.toUpperCase(), ref.status.toUpperCase(), ref.fruit_or_seed]);
      expect(record, record.id).not.toHaveProperty('fruit_or_seed');
    });
    expect(v1.meta).toEqual({ total: v2.meta.total });
    expect(v1.links).toMatchObject({ self: '/v1/species?q=oak&page=3', prev: '/v1/species?q=oak&page=2', next: '/v1/species?q=oak&page=4' });
  });

  it('a detail: the bare record in v1 shape, with its own ETag', async () => {
    const [v1, v2] = await Promise.all([t.get('/v1/species/ABBA'), t.get('/v2/species/ABBA')]);
    const [record, envelope] = [await json(v1), await json(v2)];
    expect(record).not.toHaveProperty('data');
    expect([record.id, record.rank, record.status, record.flower_or_seed]).toEqual(['ABBA', 'SPECIES', 'ACCEPTED', envelope.data.fruit_or_seed]);
    expect(record.common_names.English).toEqual(envelope.data.common_names.en);
    expect(v1.headers.get('ETag')).toMatch(/^"/);
    expect(v1.headers.get('ETag')).not.toBe(v2.headers.get('ETag'));
  });

  it('an error: the v1 body, where v2 answers a problem', async () => {
    const [v1, v2] = await Promise.all([t.get('/v1/species/NO-SUCH-ID'), t.get('/v2/species/NO-SUCH-ID')]);
    const problem = await json(v2);
    expect(v2.headers.get('Content-Type')).toBe('application/problem+json');
    expect(v1.headers.get('Content-Type')).toBe('application/json');
    expect(await json(v1)).toEqual({ statusCode: 404, message: problem.detail });
  });
});

describe('a version derived from v1, as an older one would be added', () => {
  const V1 = v1(parseConfig({}));
  const earlier = Date.parse('2027-01-01T00:00:00Z');
  const v0: Version = {
    name: 'v0',
    bases: ['/v0'],
    parent: V1,
    changes: [
      {
        name: 'pages-by-twos',
        description: 'A v0 page number counts pairs of v1 pages; v0 errors are plain text.',
        listQuery: (query) => ({ ...query, page: query.page * 2 }),
        error: (error) => ({ contentType: 'text/plain', body: error.status }),
        retiredAt: earlier,
      },
    ],
  };

  it('migrates a request from its own change toward the core: v0 page 3 is v1 page 6, core page 3', () => {
    expect(walk.listQuery(v0, { q: 'oak', order: [], page: 3 })).toEqual({ q: 'oak', order: [], page: 3 });
    expect(walk.listQuery(V1, { q: 'oak', order: [], page: 6 }).page).toBe(3);
  });

  it('renders errors in the shape of its own change (the outermost that has one), not in the v1 body', () => {
    expect(walk.error(v0, new ApiError('svc/notFound'))).toEqual({ contentType: 'text/plain', body: 404 });
    expect(walk.error(V1, new ApiError('svc/notFound'))?.contentType).toBe('application/json');
  });

  it('retires at the earliest retirement of its chain', () => {
    expect(walk.retiredAt(V1)).toBe(Date.parse('2027-07-31T00:00:00Z'));
    expect(walk.retiredAt(v0)).toBe(earlier);
  });
});
