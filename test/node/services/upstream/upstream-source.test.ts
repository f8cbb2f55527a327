/**
 * Upstream mode answers exactly as bundled mode: the bundled gateway serves as the upstream over
 * real loopback HTTP, and a second gateway in upstream mode fronts it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO, walkPages, type TestApp } from '../../../support/harness';
import { bundledUpstream, upstreamGateway, type Loopback, type UpstreamGateway } from '../../../support/upstream';

let upstream: Loopback & { gateway: TestApp };
let bundled: TestApp;
let gateway: UpstreamGateway;

beforeAll(async () => {
  upstream = await bundledUpstream();
  bundled = upstream.gateway;
  // A realistic cache, so that the second look at every path is answered from it.
  gateway = upstreamGateway(upstream.url, { tuning: { cacheTtlMs: 60_000, staleMs: 60_000, cacheMaxEntries: 5000, cacheMaxBytes: 64 * 1024 * 1024 } });
});
afterAll(() => upstream.close());

/** Status, the headers a client relies on, and the body with the per-request `instance` masked. */
async function observe(res: Response) {
  const text = await res.text();
  const body = text === '' ? null : JSON.parse(text);
  if (body && typeof body.instance === 'string') body.instance = body.instance.replace(/request:.*/, 'request:*');
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    etag: res.headers.get('etag'),
    lastModified: res.headers.get('last-modified'),
    wwwAuthenticate: res.headers.get('www-authenticate'),
    deprecation: res.headers.get('deprecation'),
    sunset: res.headers.get('sunset'),
    body,
  };
}

const LONG_Q = 'a'.repeat(201);
const SINGLE_PATHS: Array<[string, Record<string, string>?]> = [
  ['/v2/species'],
  ['/v2/species?page=2'],
  ['/v2/species?page=1640'],
  ['/v2/species?page=1641'],
  ['/v2/species?page=99999'],
  ['/v2/species?q=zzzzqqq'],
  ['/v2/species?q=zzzzqqq&page=2'],
  ['/v2/species?foo=1&q=Abies&key=&order[year]=desc&page=2&order[slug]=asc'],
  ['/v2/species?q=%C3%A9pinette'],
  ['/v2/genus?order[name]=desc&page=3'],
  ['/v2/families?q=aceae&page=2'],
  ['/v2/plants?order[scientific_name]=desc&order[common_name]=asc'],
  ['/v2/genus/Abies/species?page=9'],
  ['/v2/genus/ZZNONE/species'],
  ['/v2/genus/ZZNONE/species?page=3'],
  ['/v2/families/Pinaceae/genus?order[name]=desc'],
  ['/v2/species/ABAL3'],
  ['/v2/species/abal3'],
  ['/v2/genus/Abies'],
  ['/v2/families/Pinaceae'],
  ['/v2/plants/ABAB'],
  ['/v2/species/ZZNONE'],
  ['/v2/species/%2E%2E'],
  ['/v2/species?page=0'],
  ['/v2/species?page=abc'],
  ['/v2/species?order[color]=asc'],
  [`/v2/species?q=${LONG_Q}`],
  ['/v2/species', {}],
  ['/v2/genus', { Authorization: DEMO.speciesOnlyKey }],
  ['/v2/species', { Authorization: 'ApiKey wrong' }],
  ['/v2/species', { Authorization: DEMO.key, 'x-api-key': 'demo-project-key' }],
  ['/v2/nothing'],
];

describe('upstream mode answers like bundled mode', () => {
  it.each(SINGLE_PATHS)('%s (first from the upstream, then from the cache)', async (path, headers) => {
    const expected = await observe(await bundled.get(path, headers));
    for (const pass of ['cold', 'warm']) {
      const actual = await observe(await gateway.get(path, headers));
      expect(actual, `${pass}: ${JSON.stringify(actual.body).slice(0, 400)}`).toEqual(expected);
    }
  });

  it.each([
    '/v2/species?q=abies',
    '/v2/species?q=fir&order[common_name]=desc&order[year]=asc',
    '/v2/genus/Abies/species',
    '/v2/genus/Pinus/plants?order[slug]=desc',
    '/v2/plants/ABAB/species',
    '/v2/families/Pinaceae/genus',
    '/v2/families?q=a',
  ])('walking %s gives the same pages', async (path) => {
    const expected = await walkPages(bundled, path);
    const actual = await walkPages(gateway, path);
    expect(actual.length).toBe(expected.length);
    expect(actual).toEqual(expected);
  });

  it('answers If-None-Match with 304 for the same ETag', async () => {
    const etag = (await bundled.get('/v2/species/ABAL3')).headers.get('etag')!;
    const res = await gateway.get('/v2/species/ABAL3', { Authorization: DEMO.key, 'If-None-Match': etag });
    expect(res.status).toBe(304);
  });

  it('costs one upstream call per page (two only for a page past the last, to word the 404)', async () => {
    const before = await upstreamRequests();
    const fresh = upstreamGateway(upstream.url);
    expect((await fresh.get('/v2/species?q=pine&page=2')).status).toBe(200);
    expect(await upstreamRequests()).toBe(before + 1);
    expect((await fresh.get('/v2/species/ABAL3')).status).toBe(200);
    expect(await upstreamRequests()).toBe(before + 2);
    expect((await fresh.get('/v2/species?q=pine&page=500')).status).toBe(404);
    expect(await upstreamRequests()).toBe(before + 4);
  });
});

/** How many requests the upstream has logged so far. */
async function upstreamRequests(): Promise<number> {
  return bundled.logs.length;
}

const key = DEMO.key.split(' ')[1]!;

describe('v1 over upstream answers like v1 over the bundled dataset', () => {
  it.each([
    ['/v1/species?page=3', { Authorization: DEMO.key }],
    [`/v1/species?key=${key}&q=abies&order[year]=desc&page=2`, {}],
    ['/v1/species?page=3280', { 'x-api-key': key }],
    ['/v1/species?page=3281', { 'x-api-key': key }],
    ['/v1/species/ABAL3', { Authorization: DEMO.key }],
    ['/v1/species/ZZNONE', { Authorization: DEMO.key }],
    ['/api/v1/genus?page=5', { Authorization: DEMO.key }],
    ['/v1/genus/Abies/species', { Authorization: DEMO.key }],
  ] as Array<[string, Record<string, string>]>)('%s', async (path, headers) => {
    const expected = await observe(await bundled.get(path, headers));
    for (const pass of ['cold', 'warm']) {
      const actual = await observe(await gateway.get(path, headers));
      expect(actual, `${pass}: ${JSON.stringify(actual.body).slice(0, 400)}`).toEqual(expected);
    }
  });

  it('walks the same v1 pages', async () => {
    const path = `/v1/species?q=fir&order[common_name]=desc`;
    expect(await walkPages(gateway, path, { 'x-api-key': key })).toEqual(await walkPages(bundled, path, { 'x-api-key': key }));
  });

  it.each([1, 2, 3, 7, 8])('v1 page %i costs one upstream call, to v2 page ceil(p/2)', async (p) => {
    const fresh = upstreamGateway(upstream.url);
    const before = bundled.logs.length;
    expect((await fresh.get(`/v1/species?q=pine&page=${p}`, { Authorization: DEMO.key })).status).toBe(200);
    expect(bundled.logs.slice(before).map((l) => l.path)).toEqual([`/v2/species?q=pine${p > 2 ? `&page=${Math.ceil(p / 2)}` : ''}`]);
  });
});
