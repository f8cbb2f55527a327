/**
 * Who may keep an answer (docs/reference/requests.md), on Node: the runtime-neutral suite over the bundled
 * dataset and over a fronted backend whose own `Cache-Control` and `Vary` say something else; the
 * legacy backend's answers; redirects and 426 over plain HTTP.
 */
import { serve } from '@hono/node-server';
import type { Server } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO, testApp } from '../../support/harness';
import { legacyV1, type LegacyV1 } from '../../support/legacy-v1';
import { migrationApp, type MigrationApp } from '../../support/migration';
import { bundledUpstream, upstreamGateway, type Loopback } from '../../support/upstream';
import type { TestApp } from '../../support/harness';
import { cachingSuite } from '../../suites/caching.suite';

// A gateway of its own for each test, built inside it (so a mutation run credits the policy's code
// to the tests that reach it) and shared by the test's requests.
let bundled: TestApp | undefined;
beforeEach(() => {
  bundled = undefined;
});
describe('bundled dataset', () => cachingSuite(() => (bundled ??= testApp())));

/**
 * A backend that says its answers are public and vary on something else: the gateway, which
 * authorized the caller, must replace both.
 */
let upstream: Loopback & { gateway: TestApp };
let loose: { url: string; server: Server };
let fronting: TestApp;
beforeAll(async () => {
  upstream = await bundledUpstream();
  loose = await new Promise((resolve) => {
    const server = serve(
      {
        hostname: '127.0.0.1',
        port: 0,
        fetch: async (req) => {
          const res = await fetch(`${upstream.url}${new URL(req.url).pathname}${new URL(req.url).search}`, { headers: req.headers });
          const headers = new Headers(res.headers);
          headers.set('Cache-Control', 'public, max-age=600');
          headers.set('Vary', 'Accept-Language');
          return new Response(res.body, { status: res.status, headers });
        },
      },
      (info) => resolve({ url: `http://127.0.0.1:${info.port}`, server: server as Server }),
    );
  });
  fronting = upstreamGateway(loose.url);
});
afterAll(async () => {
  loose.server.closeAllConnections();
  await new Promise((resolve) => loose.server.close(resolve));
  await upstream.close();
});

describe('fronting a backend that calls its answers public', () => {
  it('the backend really says so (or this test proves nothing)', async () => {
    const res = await fetch(`${loose.url}/v2/species/ABBA`, { headers: { Authorization: DEMO.key } });
    expect(res.headers.get('cache-control')).toBe('public, max-age=600');
    expect(res.headers.get('vary')).toBe('Accept-Language');
    await res.body?.cancel();
  });
  cachingSuite(() => fronting);
});

describe('answered by the legacy backend (V1_ANSWER=legacy)', () => {
  let legacy: LegacyV1;
  let gateway: MigrationApp;
  beforeAll(async () => {
    legacy = await legacyV1();
    gateway = migrationApp(legacy, { V1_ANSWER: 'legacy' });
  });
  afterAll(() => legacy.close());

  it('a record: private to the caller, varying on every v1 credential header', async () => {
    const res = await gateway.get('/v1/species/ABBA', { 'X-Key': 'demo-project-key' });
    expect(res.status).toBe(200);
    expect(res.headers.get('last-modified')).toBeTruthy();
    expect(res.headers.get('cache-control')).toBe('private, no-cache');
    expect(res.headers.get('vary')).toBe('Authorization, X-Api-Key, X-Key');
  });

  it('a record revalidated: the 304 says what the 200 said, private and varying the same', async () => {
    const first = await gateway.get('/v1/species/ABBA', { 'X-Key': 'demo-project-key' });
    const tag = first.headers.get('etag');
    expect(tag).toMatch(/^"/);
    const res = await gateway.get('/v1/species/ABBA', { 'X-Key': 'demo-project-key', 'If-None-Match': tag! });
    expect(res.status).toBe(304);
    expect(res.headers.get('cache-control')).toBe('private, no-cache');
    expect(res.headers.get('vary')).toBe('Authorization, X-Api-Key, X-Key');
  });

  it("the backend's own refusal: no-store", async () => {
    const res = await gateway.get('/v1/species/ZZNONE', { 'X-Key': 'demo-project-key' });
    expect(res.status).toBe(404);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('vary')).toBeNull();
  });
});

describe('plain HTTP', () => {
  const paths = ['/v2/species/ABBA', '/v1/species/ABBA?key=demo-project-key', '/v3/species', '/oauth/token', '/v2/openapi.json'];
  for (const [when, now, status] of [
    ['before the cut-off', '2026-06-01T00:00:00Z', 301],
    ['after the cut-off', '2026-11-21T12:00:00Z', 426],
  ] as const) {
    it(`${when}: ${status}, kept by nobody`, async () => {
      const t = testApp({ now });
      for (const path of paths) {
        const res = await t.app.request(`http://api.example.com${path}`, { headers: { 'X-Key': 'demo-project-key' } });
        const what = `${path}: ${res.status} ${res.headers.get('cache-control')} ${res.headers.get('vary')}`;
        expect(res.status, what).toBe(status);
        expect(res.headers.get('cache-control'), what).toBe('no-store');
        expect(res.headers.get('vary'), what).toBeNull();
      }
    });
  }
});
