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
import { parseConfig, type ConfigVars } from '../../src/config';
import { ApiError } from '../../src/core/api-error';
import { coreDocument } from '../../src/openapi/document';
import { buildVersions } from '../../src/versions';
import { v1 as buildV1 } from '../../src/versions/v1';
import { bareDetail } from '../../src/versions/v1/bare-detail';
import type { JsonObject, Version, VersionChange } from '../../src/versions/version';
import { CORE_CREDENTIALS, resolveVersion, walk } from '../../src/versions/walker';
import { DEFAULT_V1_HEADERS } from '../suites/v1.suite';

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
    const found = resolveVersion(versions, path);
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
    expect(resolveVersion([again, ...versions], '/v1/species')?.version).toBe(again);
    expect(resolveVersion([...versions, { ...v2, name: 'shadow' }], '/v2/species')?.version.name).toBe('v2');
  });
});
