/** GET /readyz in both modes, and the upstream source built from the configuration. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../src/config';
import { ManualClock } from '../../../../src/services/clock';
import { createUpstreamSource } from '../../../../src/services/upstream/index';
import { DEMO, json, testApp, type TestApp } from '../../../support/harness';
import { bundledUpstream, closedPort, configWith, upstreamGateway, type Loopback } from '../../../support/upstream';

let upstream: Loopback & { gateway: TestApp };
beforeAll(async () => {
  upstream = await bundledUpstream();
});
afterAll(() => upstream.close());

async function readyz(app: { get: TestApp['get'] }) {
  const res = await app.get('/readyz', {});
  return { status: res.status, cacheControl: res.headers.get('cache-control'), requestId: res.headers.get('svc-request-id'), body: await json(res) };
}

describe('GET /readyz', () => {
  it('bundled mode: ready, no credential needed', async () => {
    const r = await readyz(testApp());
    expect(r).toMatchObject({ status: 200, cacheControl: 'no-store', body: { status: 'ready', mode: 'bundled' } });
    expect(r.requestId).toBeTruthy();
  });

  it('upstream mode: ready when the upstream answers, with the breaker state', async () => {
    const r = await readyz(upstreamGateway(upstream.url));
    expect(r).toMatchObject({ status: 200, body: { status: 'ready', mode: 'upstream', upstream: { reachable: true, breaker: 'closed' } } });
  });

  it.each([
    ['an unreachable upstream', async () => upstreamGateway(await closedPort()), 'upstream/unavailable'],
    ['an upstream refusing the gateway credential', async () => upstreamGateway(upstream.url, { authorization: 'ApiKey wrong' }), 'upstream/unavailable'],
    ['a wrong UPSTREAM_URL path', async () => upstreamGateway(`${upstream.url}/nothing-here`), 'upstream/unavailable'],
  ])('upstream mode: 503 for %s', async (_name, make, problem) => {
    const r = await readyz(await make());
    expect(r).toMatchObject({ status: 503, body: { status: 'unavailable', mode: 'upstream', upstream: { reachable: false, breaker: 'closed', problem } } });
  });

  it('probes the upstream itself, not the cache', async () => {
    const gateway = upstreamGateway(upstream.url, { tuning: { cacheTtlMs: 60_000, staleMs: 60_000 } });
    const before = upstream.gateway.logs.length;
    await readyz(gateway);
    await readyz(gateway);
    expect(upstream.gateway.logs.length - before).toBe(2);
  });
});

describe('createUpstreamSource', () => {
  it('builds a working source from UPSTREAM_* configuration', async () => {
    const config = configWith({
      UPSTREAM_URL: `${upstream.url}/`,
      UPSTREAM_AUTHORIZATION: DEMO.key,
      UPSTREAM_TIMEOUT_MS: '700',
      UPSTREAM_RETRY_BUDGET_PERCENT: '20',
    });
    expect(config.upstream).toMatchObject({ timeoutMs: 700, retryBudgetPercent: 20, retries: 1, cacheTtlMs: 30_000 });
    const source = createUpstreamSource(config, { clock: new ManualClock(0), log: () => {} });
    const page = await source.list('species', { q: 'abies', order: [], page: 1 }, undefined, { requestId: 'r1' });
    expect(page?.items.length).toBeGreaterThan(0);
    expect(await source.get('species', 'ZZNONE', { requestId: 'r2' })).toBeUndefined();
  });

  it('refuses an UPSTREAM_URL with credentials in it, without printing them', () => {
    const config = configWith({ UPSTREAM_URL: 'https://user:s3cret@backend.example' });
    expect(() => createUpstreamSource(config, { clock: new ManualClock(0), log: () => {} })).toThrow(ConfigError);
    expect(() => createUpstreamSource(config, { clock: new ManualClock(0), log: () => {} })).toThrow(/^(?!.*s3cret).*UPSTREAM_URL/);
  });

  it.each([
    ['user@backend.example', 'must not carry credentials; set UPSTREAM_AUTHORIZATION instead'],
    [':s3cret@backend.example', 'must not carry credentials; set UPSTREAM_AUTHORIZATION instead'],
    ['backend.example/?region=eu', 'must be a base URL without query or fragment'],
    ['backend.example/#eu', 'must be a base URL without query or fragment'],
  ])('refuses UPSTREAM_URL https://%s: it %s', (rest, problem) => {
    const config = configWith({ UPSTREAM_URL: `https://${rest}` });
    expect(() => createUpstreamSource(config, { clock: new ManualClock(0), log: () => {} })).toThrow(new ConfigError('UPSTREAM_URL', problem));
  });

  it('is not made without an UPSTREAM_URL', () => {
    expect(() => createUpstreamSource(configWith({}), { clock: new ManualClock(0), log: () => {} })).toThrow(new ConfigError('UPSTREAM_URL', 'is not set'));
  });

  it("with the runtime's fetch (the Workers entry's), names the refused connection by its code", async () => {
    const lines: Array<Record<string, unknown>> = [];
    const config = configWith({ UPSTREAM_URL: await closedPort(), UPSTREAM_RETRIES: '0' });
    const source = createUpstreamSource(config, { clock: new ManualClock(0), log: (line) => lines.push(line) });
    await expect(source.get('species', 'SP1', { requestId: 'r1' })).rejects.toMatchObject({ code: 'upstream/unavailable' });
    expect(lines.map((l) => l.message)).toEqual(['upstream connection failed: ECONNREFUSED']);
  });
});
