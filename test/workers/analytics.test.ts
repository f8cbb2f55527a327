/**
 * Workers (docs/reference/observability.md): one Analytics Engine data point per request when a `METRICS`
 * binding exists, with the dimensions of the Node metrics and the subject as the index, and none
 * without one; calls to the upstream carry the request's `traceparent`, as on Node. Local workerd
 * accepts `writeDataPoint` but keeps nothing, so the binding here is one that records.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, inject, it } from 'vitest';
import { buildGateway } from '../../src/worker/gateway';
import { DEMO, json } from '../suites/client';
import { gatewayClient } from './client';

/** An Analytics Engine dataset that keeps what is written to it. */
function recordingDataset(): AnalyticsEngineDataset & { points: AnalyticsEngineDataPoint[] } {
  const points: AnalyticsEngineDataPoint[] = [];
  return { points, writeDataPoint: (point) => void points.push(point!) };
}

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const INCOMING = `00-${TRACE}-00f067aa0ba902b7-01`;

describe('Analytics Engine on Workers', () => {
  it('writes one data point per request: subject as index, version, route, method, status, who answered, durations', async () => {
    const metrics = recordingDataset();
    const client = gatewayClient(buildGateway({ ...env, METRICS: metrics }));
    await json(await client.get('/v2/species/ABAL3'));
    await json(await client.get('/v1/species?q=abies', { 'x-api-key': DEMO.key.split(' ')[1]! }));
    await json(await client.get('/v2/species', { Authorization: 'ApiKey wrong' }));
    await client.get('/healthz', {});
    expect(metrics.points).toHaveLength(4);
    const [detail, v1, refused, health] = metrics.points;
    expect(detail!.indexes).toEqual(['project:demo']);
    expect(detail!.blobs).toEqual(['v2', 'GET /species/{id}', 'GET', '200', 'gateway', '', '', '']);
    expect(detail!.doubles![0]).toBeGreaterThanOrEqual(0);
    expect(detail!.doubles![1]).toBe(200);
    expect(detail!.doubles![4], 'response bytes').toBeGreaterThan(100);
    expect(v1!.blobs!.slice(0, 4)).toEqual(['v1', 'GET /species', 'GET', '200']);
    expect(refused!.indexes).toEqual(['anonymous']);
    expect(refused!.blobs!.slice(0, 5)).toEqual(['v2', 'GET /species', 'GET', '401', 'gateway']);
    expect(health!.blobs!.slice(0, 4)).toEqual(['', '', 'GET', '200']);
  });

  it('writes nothing, and answers as ever, without the binding', async () => {
    const metrics = recordingDataset();
    // The binding exists on another gateway; this one has none.
    buildGateway({ ...env, METRICS: metrics });
    const { METRICS: _absent, ...unbound } = { ...env, METRICS: undefined };
    const res = await gatewayClient(buildGateway(unbound)).get('/v2/species/ABAL3');
    expect(res.status).toBe(200);
    expect(metrics.points).toEqual([]);
  });

  it('in upstream mode: the backend’s outcome, time and cache result, and the traceparent the backend received', async () => {
    const metrics = recordingDataset();
    const upstream = inject('recordingUpstreamUrl');
    const gateway = buildGateway({
      ...env,
      METRICS: metrics,
      UPSTREAM_URL: upstream,
      UPSTREAM_AUTHORIZATION: 'ApiKey demo-project-key',
      TRUST_TRACEPARENT: 'true',
    });
    const q = `abies-${crypto.randomUUID().slice(0, 8)}`;
    const res = await gatewayClient(gateway).get(`/v2/species?q=${q}`, { Authorization: DEMO.key, traceparent: INCOMING, tracestate: 'vendor=x' });
    expect(res.status, JSON.stringify(await json(res)).slice(0, 200)).toBe(200);
    const point = metrics.points[0]!;
    expect(point.blobs).toEqual(['v2', 'GET /species', 'GET', '200', 'upstream', 'upstream', 'ok', 'miss']);
    expect(point.doubles![2], 'backend time').toBeGreaterThan(0);
    expect(point.doubles![3], 'backend status').toBe(200);
    // Asked again: the Cache API answers, and a cached copy is the gateway's answer.
    await json(await gatewayClient(gateway).get(`/v2/species?q=${q}`));
    expect(metrics.points[1]!.blobs).toEqual(['v2', 'GET /species', 'GET', '200', 'gateway', '', '', 'hit']);
    const seen = (await (await fetch(`${upstream}/__seen`)).json()) as { url: string; headers: Record<string, string> }[];
    const call = seen.find((s) => s.url.includes(q));
    expect(call, JSON.stringify(seen.map((s) => s.url))).toBeDefined();
    expect(call!.headers.traceparent).toMatch(new RegExp(`^00-${TRACE}-[0-9a-f]{16}-01$`));
    expect(call!.headers.traceparent).not.toContain('00f067aa0ba902b7');
    expect(call!.headers.tracestate).toBeUndefined();
    expect(call!.headers['user-agent']).toBe('botanical-gateway');
    // Those of docs/upstream.md: the gateway's own, and Host and CF-Worker from the runtime.
    expect(Object.keys(call!.headers).sort()).toEqual(['accept', 'authorization', 'cf-worker', 'host', 'svc-request-id', 'traceparent', 'user-agent']);
  });
});
