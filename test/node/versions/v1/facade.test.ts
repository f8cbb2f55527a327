import { describe, expect, it } from 'vitest';
import type { ListQuery, RecordSource } from '../../../../src/services/record-source';
import { DEFAULT_V1_HEADERS, v1Suite } from '../../../suites/v1.suite';
import { bundledSource, DEMO, json, testApp } from '../../../support/harness';

const shared = testApp();
v1Suite(() => shared, DEFAULT_V1_HEADERS);

describe('v1 deprecation headers come from the configuration', () => {
  it('uses V1_DEPRECATED_AT, V1_SUNSET and DOCS_URL', async () => {
    const t = testApp({
      env: { V1_DEPRECATED_AT: '2026-02-03T04:05:06Z', V1_SUNSET: '2028-01-15T00:00:00Z', DOCS_URL: 'https://docs.example.org/api/' },
    });
    const res = await t.get('/v1/species/ABBA');
    expect(res.status).toBe(200);
    expect(res.headers.get('Deprecation')).toBe('@1770091506');
    expect(res.headers.get('Sunset')).toBe('Sat, 15 Jan 2028 00:00:00 GMT');
    expect(res.headers.get('Link')).toBe(
      '<https://docs.example.org/api/migrating-to-v2>; rel="deprecation", </v2/migration-plan>; rel="https://docs.example.org/api/rels/migration-plan"',
    );
  });
});

describe('v1 after its sunset (ManualClock)', () => {
  const SUNSET = '2027-07-31T00:00:00Z';

  it('serves until the instant before V1_SUNSET, then answers 410 to everything, deprecation headers kept', async () => {
    const t = testApp({ now: '2027-07-30T23:59:59.999Z' });
    expect((await t.get('/v1/species?q=oak')).status).toBe(200);
    t.clock.set(SUNSET);
    const requests: [string, Record<string, string>?, RequestInit?][] = [
      ['/v1/species?q=oak'],
      ['/api/v1/species/ABBA'],
      ['/v1/genus/Abies/species'],
      ['/v1/nowhere'],
      ['/v1/species', {}],
      ['/v1/species?key=demo-project-key', {}],
      ['/v1/species', { 'x-api-key': 'wrong' }],
      ['/v1/species', undefined, { method: 'POST' }],
    ];
    for (const [path, headers, init] of requests) {
      const res = await t.get(path, headers, init);
      const body = await json(res);
      expect(res.status, `${path}: ${JSON.stringify(body)}`).toBe(410);
      expect(res.headers.get('Content-Type')).toBe('application/json');
      expect(body).toEqual({ statusCode: 410, message: expect.stringContaining('/v2') });
      expect(JSON.stringify(body)).not.toContain('demo-project-key');
      expect(res.headers.get('Deprecation')).toBe(DEFAULT_V1_HEADERS.deprecation);
      expect(res.headers.get('Sunset')).toBe(DEFAULT_V1_HEADERS.sunset);
      expect(res.headers.get('Link')).toBe(DEFAULT_V1_HEADERS.link);
    }
    const head = await t.get('/v1/species/ABBA', undefined, { method: 'HEAD' });
    expect(head.status).toBe(410);
    expect(head.headers.get('Sunset')).toBe(DEFAULT_V1_HEADERS.sunset);
    expect((await t.get('/v2/species?q=oak')).status, 'v2 lives on').toBe(200);
  });

  it('follows a configured V1_SUNSET', async () => {
    const t = testApp({ env: { V1_SUNSET: '2026-06-01T00:00:00Z' }, now: '2026-06-01T00:00:00Z' });
    expect((await t.get('/v1/species')).status).toBe(410);
    expect((await t.get('/v2/species')).status).toBe(200);
  });
});

describe('policies answer v1 in v1 shape, with the deprecation headers', () => {
  const plain = (t: ReturnType<typeof testApp>, path: string, headers: Record<string, string> = { Authorization: DEMO.key }) =>
    t.app.request(`http://api.example.com${path}`, { headers });
  const expectDeprecated = (res: Response) => {
    expect(res.headers.get('Deprecation')).toBe(DEFAULT_V1_HEADERS.deprecation);
    expect(res.headers.get('Sunset')).toBe(DEFAULT_V1_HEADERS.sunset);
    expect(res.headers.get('Link')).toBe(DEFAULT_V1_HEADERS.link);
  };

  it('plain HTTP before the cut-off: 301 to https, keeping /api/v1', async () => {
    const res = await plain(testApp({ now: '2026-08-30T00:00:00Z' }), '/api/v1/species?q=oak&page=2');
    expect(res.status).toBe(301);
    expect(res.headers.get('Location')).toBe('https://api.example.com/api/v1/species?q=oak&page=2');
    expectDeprecated(res);
  });

  it('plain HTTP after the cut-off: 426 as {statusCode, message}', async () => {
    const res = await plain(testApp(), '/v1/species');
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(426);
    expect(res.headers.get('Content-Type')).toBe('application/json');
    expect(body).toEqual({ statusCode: 426, message: expect.stringContaining('https://api.example.com/v1/species') });
    expectDeprecated(res);
  });

  it('over the rate limit: 429 as {statusCode, message}, with Retry-After; the limit counts v1 credential places', async () => {
    const t = testApp({ env: { RATE_LIMIT_PER_MINUTE: '2' } });
    const ok = await t.get('/v1/species?key=demo-project-key', {});
    expect(ok.status).toBe(200);
    expect(ok.headers.get('RateLimit')).toMatch(/^"default";r=1;t=\d+$/);
    expect((await t.get('/api/v1/species', { 'x-api-key': 'demo-project-key' })).status).toBe(200);
    const res = await t.get('/v1/species', { Authorization: DEMO.key });
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(429);
    expect(body).toEqual({ statusCode: 429, message: expect.any(String) });
    expect(res.headers.get('Retry-After')).toMatch(/^\d+$/);
    expectDeprecated(res);
  });
});

describe('v1 credentials in the access log', () => {
  const PLACES: [string, string, Record<string, string>, string][] = [
    ['Authorization ApiKey', '/v1/species', { Authorization: DEMO.key }, 'apiKey'],
    ['Authorization Bearer', '/v1/species', { Authorization: DEMO.personalToken }, 'bearer'],
    ['x-api-key', '/v1/species', { 'x-api-key': 'demo-project-key' }, 'v1:x-api-key'],
    ['x-key', '/v1/species', { 'x-key': 'demo-personal-token' }, 'v1:x-key'],
    ['key query', '/v1/species?key=demo-project-key&q=oak', {}, 'v1:query'],
    ['token query', '/api/v1/species?q=oak&token=demo-personal-token', {}, 'v1:query'],
  ];
  it.each(PLACES)('%s is logged as its place, with no secret in the line', async (_label, path, headers, credential) => {
    const t = testApp();
    const res = await t.get(path, headers);
    expect(res.status).toBe(200);
    expect(t.logs).toHaveLength(1);
    expect(t.logs[0]).toMatchObject({ version: 'v1', status: 200, credential });
    const line = JSON.stringify(t.logs);
    for (const secret of ['demo-project-key', 'demo-personal-token']) expect(line).not.toContain(secret);
  });

  it('redacts query credentials from the logged path, also on errors', async () => {
    const t = testApp();
    await t.get('/v1/species?q=oak&key=demo-project-key&page=0', {});
    await t.get('/v1/species?token=not-valid-secret', {});
    expect(t.logs.map((l) => [l.status, l.path])).toEqual([
      [400, '/v1/species?q=oak&key=[redacted]&page=0'],
      [401, '/v1/species?token=[redacted]'],
    ]);
    expect(JSON.stringify(t.logs)).not.toMatch(/demo-project-key|not-valid-secret/);
  });
});

describe('pages-of-ten reads one core page per v1 page', () => {
  /** The bundled source, recording what the core asked of it. */
  const spy = () => {
    const calls: ListQuery[] = [];
    const inner: RecordSource = bundledSource();
    const source: RecordSource = {
      list: (resource, query, scope, ctx) => (calls.push(query), inner.list(resource, query, scope, ctx)),
      get: (resource, id, ctx) => inner.get(resource, id, ctx),
    };
    return { calls, source };
  };

  it.each([
    [1, 1],
    [2, 1],
    [3, 2],
    [31, 16],
    [32, 16],
    [33, 17],
  ])('v1 page %i -> one call for core page %i, with the caller q and order', async (page, corePage) => {
    const { calls, source } = spy();
    const t = testApp({ services: { source } });
    await t.get(`/v1/species?q=oak&order[slug]=desc&page=${page}`);
    expect(calls).toEqual([{ q: 'oak', order: [{ field: 'slug', direction: 'desc' }], page: corePage }]);
  });
});

describe('v1 missing-credential message', () => {
  it('names every place v1 accepts, while v2 names only the header', async () => {
    const v1 = await json(await shared.get('/v1/species', {}));
    expect(v1.message).toMatch(/Authorization header.*x-api-key header.*x-key header.*"key" query parameter.*"token" query parameter/);
    const v2 = await json(await shared.get('/v2/species', {}));
    expect(v2.detail).toBe('Send a credential in the Authorization header.');
  });
});
