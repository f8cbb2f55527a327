/**
 * Prometheus metrics (docs/reference/observability.md), in process: what the gateway records where it knows
 * the facts, and that no caller, credential, id, query or raw path ever becomes a series.
 */
import * as promClient from 'prom-client';
import { describe, expect, it } from 'vitest';
import { durationBuckets } from '../../../src/node/families';
import { PrometheusMetrics } from '../../../src/node/prometheus';
import { MemoryResponseCache, UpstreamSource } from '../../../src/services/upstream/index';
import { ManualClock } from '../../../src/services/clock';
import { DEMO, NOW, testApp } from '../../support/harness';
import { fakePage, fakesClosedAfterEach, pageOf, sendJson, sleep, TEST_TUNING } from '../../support/upstream';
import { LEGACY_AUTHORIZATION, legacyV1, type LegacyV1 } from '../../support/legacy-v1';

const newMetrics = () => new PrometheusMetrics(promClient, { timeoutMs: 5000, build: { version: 'test', dataset: 'test' }, runtime: false });

/** Every series of the registry as `name{label="value",...}` with its value. */
async function series(metrics: PrometheusMetrics): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const metric of await metrics.registry.getMetricsAsJSON()) {
    for (const v of metric.values as { metricName?: string; labels: Record<string, string | number>; value: number }[]) {
      const labels = Object.entries(v.labels)
        .map(([k, x]) => `${k}="${x}"`)
        .join(',');
      out.set(`${v.metricName ?? metric.name}{${labels}}`, v.value);
    }
  }
  return out;
}

const value = (all: Map<string, number>, name: string, labels: string) => all.get(`${name}{${labels}}`);

describe('requests', () => {
  it('keeps every status, method and answerer of one route in a series of its own', async () => {
    const metrics = newMetrics();
    const statuses = [null, 200, 201, 304, 400, 404, 405, 408, 410, 429, 500, 502, 503, 504];
    const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'BREW'];
    const answerers = ['gateway', 'upstream'] as const;
    const seen: string[] = [];
    for (const status of statuses) {
      for (const method of methods) {
        for (const answeredBy of answerers) {
          metrics.requestObserved({
            version: 'v2',
            route: '/species',
            method,
            status,
            answeredBy,
            durationMs: 1,
            backend: undefined,
            cache: undefined,
            credentialPlace: null,
            subject: null,
          });
          seen.push(
            `version="v2",route="/species",method="${method === 'BREW' ? 'OTHER' : method}",status="${status ?? 'aborted'}",answered_by="${answeredBy}"`,
          );
        }
      }
    }
    const all = await series(metrics);
    const counted = [...all].filter(([k]) => k.startsWith('gateway_requests_total{')).map(([k, v]) => [k.slice('gateway_requests_total{'.length, -1), v]);
    expect(counted.sort()).toEqual(seen.map((labels) => [labels, 1]).sort());
    // Each took a millisecond: the duration is in seconds.
    expect(value(all, 'gateway_request_duration_seconds_count', 'version="v2",route="/species"')).toBe(seen.length);
    expect(value(all, 'gateway_request_duration_seconds_sum', 'version="v2",route="/species"')).toBeCloseTo(seen.length / 1000, 9);
  });

  it('shows every kind of 429 at 0 before the first', async () => {
    const all = await series(newMetrics());
    const refusals = [...all].filter(([k]) => k.startsWith('gateway_rate_limit_refusals_total'));
    expect(refusals.sort()).toEqual(
      ['auth_failures', 'rate_limit', 'token_rate_limit'].map((kind) => [`gateway_rate_limit_refusals_total{kind="${kind}"}`, 0]),
    );
  });

  it('counts each request by version, route template, method, status and who answered, with its duration', async () => {
    const metrics = newMetrics();
    const t = testApp({ services: { metrics } });
    await t.get('/v2/species?q=abies');
    await t.get('/v2/species/NOPE-1');
    await t.get('/v2/species/NOPE-2');
    await t.get('/v2/genus/Abies/species');
    await t.get('/v2/species', { Authorization: 'ApiKey not-a-key' });
    await t.get('/healthz', {});
    await t.get('/v2/openapi.json', {});
    await t.get('/no/such/path');
    await t.app.request('https://localhost/v2/species', { method: 'BREW', headers: { Authorization: DEMO.key } });
    const all = await series(metrics);
    const req = (labels: string) => value(all, 'gateway_requests_total', labels);
    expect(req('version="v2",route="/species",method="GET",status="200",answered_by="gateway"'), [...all.keys()].join('\n')).toBe(1);
    expect(req('version="v2",route="/species/{id}",method="GET",status="404",answered_by="gateway"')).toBe(2);
    expect(req('version="v2",route="/genus/{id}/species",method="GET",status="200",answered_by="gateway"')).toBe(1);
    expect(req('version="v2",route="/species",method="GET",status="401",answered_by="gateway"')).toBe(1);
    expect(req('version="none",route="/healthz",method="GET",status="200",answered_by="gateway"')).toBe(1);
    expect(req('version="none",route="unmatched",method="GET",status="404",answered_by="gateway"')).toBe(1);
    expect(req('version="v2",route="/v2/openapi.json",method="GET",status="200",answered_by="gateway"')).toBe(1);
    expect(
      [...all.keys()].some((k) => k.includes('method="OTHER"')),
      'an invented method is OTHER',
    ).toBe(true);
    expect(value(all, 'gateway_request_duration_seconds_count', 'version="v2",route="/species/{id}"')).toBe(2);
    expect(value(all, 'gateway_auth_failures_total', 'place="authorization",code="auth/invalidCredential"')).toBe(1);
  }, 120_000);

  it('counts v1 requests by credential place', async () => {
    const metrics = newMetrics();
    const t = testApp({ services: { metrics } });
    await t.get('/v1/species?key=demo-project-key', {});
    await t.get('/v1/species', { 'X-API-Key': 'demo-project-key' });
    await t.get('/v1/species', {});
    await t.get('/v2/species');
    const all = await series(metrics);
    expect([...all].filter(([k]) => k.startsWith('gateway_v1_requests_total')).sort()).toEqual([
      ['gateway_v1_requests_total{credential_place="none"}', 1],
      ['gateway_v1_requests_total{credential_place="v1:query"}', 1],
      ['gateway_v1_requests_total{credential_place="v1:x-api-key"}', 1],
    ]);
  });

  it('counts 429s by the limit that refused them', async () => {
    const metrics = newMetrics();
    const t = testApp({ env: { RATE_LIMIT_PER_MINUTE: '2' }, services: { metrics } });
    for (let i = 0; i < 4; i++) await t.get('/v2/species');
    expect(value(await series(metrics), 'gateway_rate_limit_refusals_total', 'kind="rate_limit"')).toBe(2);
  });
});

describe('cardinality', () => {
  it('a hundred distinct ids, queries, credentials, paths and methods add no series', async () => {
    const metrics = newMetrics();
    const t = testApp({ services: { metrics } });
    const round = async (n: number) => {
      await t.get(`/v2/species/ID-${n}`);
      await t.get(`/v2/species?q=query-${n}`);
      await t.get(`/api/v1/species/ID-${n}?key=secret-${n}`, {});
      await t.get('/v2/species', { Authorization: `ApiKey secret-${n}` });
      await t.get('/v2/species', { Authorization: `Bearer token-${n}` });
      await t.get(`/v2/unknown-${n}`);
      await t.get(`/path-${n}/x`);
      await t.app.request(`https://localhost/v2/species/ID-${n}`, { method: `VERB${n}`, headers: { Authorization: DEMO.key } });
    };
    // A few rounds make every series these requests can make; then a hundred more add none (a
    // series per distinct value would add a hundred).
    for (let n = 0; n < 3; n++) await round(n);
    const before = await series(metrics);
    for (let n = 3; n < 103; n++) await round(n);
    const after = await series(metrics);
    expect([...after.keys()].filter((k) => !before.has(k))).toEqual([]);
    expect(after.size).toBe(before.size);
    const text = (await metrics.text()).body;
    for (const secret of ['ID-50', 'query-50', 'secret-50', 'token-50', 'unknown-50', 'path-50', 'VERB50']) expect(text).not.toContain(secret);
    // The requests were counted, not dropped.
    expect(value(after, 'gateway_request_duration_seconds_count', 'version="v2",route="/species/{id}"')).toBeGreaterThanOrEqual(206);
  });
});

describe('buckets', () => {
  it('start at 1 ms and end past the upstream timeout', () => {
    for (const timeoutMs of [1, 400, 5000, 5001, 30_000, 120_000]) {
      const bounds = durationBuckets(timeoutMs);
      expect(bounds[0]).toBe(0.001);
      expect(bounds.at(-1)!, `timeout ${timeoutMs} ms`).toBeGreaterThan(timeoutMs / 1000);
      expect(bounds.at(-2)!).toBeLessThanOrEqual(timeoutMs / 1000);
    }
    expect(durationBuckets(5000)).toEqual([0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);
  });

  it('a request that ran into the deadline falls in a finite bucket of its own', async () => {
    const metrics = new PrometheusMetrics(promClient, { timeoutMs: 5000, build: { version: 't', dataset: 't' }, runtime: false });
    metrics.backendCall('upstream', 'timeout', 5003);
    const all = await series(metrics);
    expect(value(all, 'gateway_backend_call_duration_seconds_bucket', 'le="5",backend="upstream",outcome="timeout"')).toBe(0);
    expect(value(all, 'gateway_backend_call_duration_seconds_bucket', 'le="10",backend="upstream",outcome="timeout"')).toBe(1);
  });
});

describe('upstream mode', () => {
  const fake = fakesClosedAfterEach();

  function gateway(baseUrl: string, tuning: Partial<typeof TEST_TUNING> = {}) {
    const metrics = newMetrics();
    const clock = new ManualClock(Date.parse(NOW));
    const all = { ...TEST_TUNING, ...tuning };
    const source = new UpstreamSource({
      baseUrl,
      authorization: undefined,
      cache: new MemoryResponseCache({ maxEntries: 100, maxBytes: 1 << 20 }, clock),
      clock,
      tuning: all,
      log: () => {},
      metrics,
    });
    const t = testApp({ env: { UPSTREAM_URL: baseUrl }, services: { source, clock, metrics }, describes: false });
    return { t, metrics, clock };
  }

  it('says who answered, and counts backend calls by outcome and cache lookups by result', async () => {
    let mode: 'ok' | 'fail' | 'slow' = 'ok';
    const up = await fake(async (req, res) => {
      if (mode === 'fail') return sendJson(res, { error: 'x' }, 500);
      if (mode === 'slow') await sleep(300);
      sendJson(res, fakePage(pageOf(req)));
    });
    const { t, metrics, clock } = gateway(up.url, { cacheTtlMs: 1000, staleMs: 60_000, staleAfterMs: 50, retries: 0, timeoutMs: 3000 });
    await t.get('/v2/species'); // miss, the upstream answers
    await t.get('/v2/species'); // hit
    clock.advance(2000);
    mode = 'fail';
    await t.get('/v2/species'); // stale after a 5xx
    mode = 'slow';
    const [a, b] = await Promise.all([t.get('/v2/species?page=2'), t.get('/v2/species?page=2')]); // miss and coalesced
    expect([a.status, b.status]).toEqual([200, 200]);
    const all = await series(metrics);
    const req = (labels: string) => value(all, 'gateway_requests_total', labels);
    expect(req('version="v2",route="/species",method="GET",status="200",answered_by="upstream"'), [...all.keys()].join('\n')).toBe(3);
    expect(req('version="v2",route="/species",method="GET",status="200",answered_by="gateway"')).toBe(2);
    for (const [result, n] of [
      ['miss', 2],
      ['hit', 1],
      ['stale', 1],
      ['coalesced', 1],
    ] as const)
      expect(value(all, 'gateway_upstream_cache_lookups_total', `result="${result}"`), result).toBe(n);
    expect(value(all, 'gateway_backend_call_duration_seconds_count', 'backend="upstream",outcome="ok"')).toBe(2);
    expect(value(all, 'gateway_backend_call_duration_seconds_count', 'backend="upstream",outcome="5xx"')).toBe(1);
  });

  it('counts timeouts, refused connections and calls the open breaker stopped, and reports its state', async () => {
    const up = await fake(async (_req, res) => {
      await sleep(1000);
      sendJson(res, fakePage());
    });
    const { t, metrics, clock } = gateway(up.url, { timeoutMs: 100, retries: 0, breakerThreshold: 1, breakerCooldownMs: 10_000 });
    const breaker = async (state: string) => value(await series(metrics), 'gateway_breaker_state', `backend="upstream",state="${state}"`);
    expect(await breaker('closed')).toBe(1);
    expect((await t.get('/v2/species')).status).toBe(504);
    expect(await breaker('open')).toBe(1);
    expect(await breaker('closed')).toBe(0);
    expect((await t.get('/v2/species')).status).toBe(502);
    clock.advance(10_000);
    // Half-open by time alone: read when collected.
    expect(await breaker('half-open')).toBe(1);
    const all = await series(metrics);
    expect(value(all, 'gateway_backend_call_duration_seconds_count', 'backend="upstream",outcome="timeout"')).toBe(1);
    expect(value(all, 'gateway_backend_call_duration_seconds_count', 'backend="upstream",outcome="breaker_open"')).toBe(1);
    expect(value(all, 'gateway_requests_total', 'version="v2",route="/species",method="GET",status="504",answered_by="gateway"')).toBe(1);
  });

  it('counts a refused connection as refused', async () => {
    const { closedPort } = await import('../../support/upstream');
    const { t, metrics } = gateway(await closedPort(), { retries: 0 });
    expect((await t.get('/v2/species')).status).toBe(502);
    expect(value(await series(metrics), 'gateway_backend_call_duration_seconds_count', 'backend="upstream",outcome="refused"')).toBe(1);
  });
});

describe('legacy backend and comparisons', () => {
  it('counts legacy answers as answered upstream, and comparisons by route and result', async () => {
    const legacy = await legacyV1();
    try {
      const metrics = newMetrics();
      const app = migrationAppWith(legacy, metrics);
      await app.get('/v1/species/ABBA');
      legacy.inject.add('lowercaseRank');
      await app.get('/v1/species/ABBA');
      legacy.fault = (res) => res.destroy();
      await app.get('/v1/species');
      await app.settled();
      const all = await series(metrics);
      expect(value(all, 'gateway_shadow_comparisons_total', 'route="/species/{id}",result="same"'), [...all.keys()].join('\n')).toBe(1);
      expect(value(all, 'gateway_shadow_comparisons_total', 'route="/species/{id}",result="different"')).toBe(1);
      expect(value(all, 'gateway_shadow_comparisons_total', 'route="/species",result="not_made"')).toBe(1);
      expect(value(all, 'gateway_requests_total', 'version="v1",route="/species/{id}",method="GET",status="200",answered_by="upstream"')).toBe(2);
      expect(value(all, 'gateway_backend_call_duration_seconds_count', 'backend="legacy",outcome="ok"')).toBe(2);
    } finally {
      await legacy.close();
    }
  });
});

/** A gateway answering v1 from `legacy` and comparing every answer, recording into `metrics`. */
function migrationAppWith(legacy: LegacyV1, metrics: PrometheusMetrics) {
  const tasks: Promise<void>[] = [];
  const t = testApp({
    env: {
      LEGACY_V1_URL: legacy.url,
      LEGACY_V1_AUTHORIZATION: LEGACY_AUTHORIZATION,
      UPSTREAM_TIMEOUT_MS: '1000',
      V1_ANSWER: 'legacy',
      V1_COMPARE_PERCENT: '100',
    },
    services: { metrics, afterResponse: (_c, task) => void tasks.push(new Promise((resolve) => setTimeout(resolve, 0)).then(task)) },
    // An injected difference is not as described, on purpose.
    describes: false,
  });
  return {
    ...t,
    async settled() {
      while (tasks.length > 0) await Promise.all(tasks.splice(0));
    },
  };
}
