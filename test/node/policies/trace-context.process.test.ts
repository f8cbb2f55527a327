/**
 * Following a request (docs/reference/observability.md), through the gateway: the trace a request gets, the `traceparent` its calls
 * to the upstream and to the legacy backend carry (seen by real backends on loopback, through
 * Node's real fetch), the headers those backends receive (compared with docs/upstream.md), and
 * what the access line and the other lines of the request say. Reading and writing a `traceparent`
 * alone is in `traceparent.test.ts`.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogLine } from '../../../src/services/log';
import { startGatewayProcess } from '../../../tools/processes';
import { DEMO, json } from '../../support/harness';
import { diskApp } from '../../support/gateway';
import { legacyV1, type LegacyV1 } from '../../support/legacy-v1';
import { migrationApp } from '../../support/migration';
import { fakePage, fakeUpstream, pageOf, sendJson, upstreamGateway, type FakeUpstream } from '../../support/upstream';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';
const INCOMING = `00-${TRACE}-${PARENT}-01`;
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-(0[01])$/;

/** The header names docs/upstream.md says a backend receives: the first column of its table. */
const DOCUMENTED = (() => {
  const doc = readFileSync(new URL('../../../docs/upstream.md', import.meta.url), 'utf8');
  const table = doc.slice(doc.indexOf('### Headers sent to a backend'));
  const names = [...table.matchAll(/^\| `([A-Za-z-]+)` \|/gm)].map((m) => m[1]!.toLowerCase());
  return new Set(names);
})();

/** The trace id, parent span id and flags of a `traceparent` a backend received. */
function sent(header: string | string[] | undefined): { traceId: string; spanId: string; flags: string } {
  const m = TRACEPARENT.exec(String(header));
  expect(m, `traceparent ${String(header)}`).not.toBeNull();
  return { traceId: m![1]!, spanId: m![2]!, flags: m![3]! };
}

const accessLines = (logs: LogLine[]) => logs.filter((l) => l.method !== undefined && l.message === undefined);

describe('trace context through the upstream (UPSTREAM_URL)', () => {
  let upstream: FakeUpstream;
  beforeAll(async () => {
    upstream = await fakeUpstream((req, res) => (req.url!.includes('failing') ? sendJson(res, { error: 'down' }, 503) : sendJson(res, fakePage(pageOf(req)))));
  });
  afterAll(() => upstream.close());

  it('starts a new trace per request, ignores an incoming traceparent and never forwards tracestate', async () => {
    const gateway = upstreamGateway(upstream.url);
    const from = upstream.seen.length;
    await gateway.get('/v2/species?page=1', { Authorization: DEMO.key, traceparent: INCOMING, tracestate: 'vendor=secret-of-the-caller' });
    await gateway.get('/v2/species?page=2', { Authorization: DEMO.key });
    const [first, second] = upstream.seen.slice(from);
    const [a, b] = [sent(first!.headers.traceparent), sent(second!.headers.traceparent)];
    expect(a.traceId, 'the caller picked the trace without TRUST_TRACEPARENT').not.toBe(TRACE);
    expect(a.traceId).not.toBe(b.traceId);
    expect(first!.headers.tracestate).toBeUndefined();
    const lines = accessLines(gateway.logs);
    expect(lines.map((l) => l.trace_id)).toEqual([a.traceId, b.traceId]);
  });

  it('continues a valid incoming traceparent with TRUST_TRACEPARENT, with a span of the call’s own', async () => {
    const gateway = upstreamGateway(upstream.url, { env: { TRUST_TRACEPARENT: 'true' } });
    const from = upstream.seen.length;
    await gateway.get('/v2/species?q=continued', { Authorization: DEMO.key, traceparent: INCOMING, tracestate: 'vendor=x' });
    await gateway.get('/v2/species?q=not-continued', { Authorization: DEMO.key, traceparent: INCOMING.toUpperCase() });
    const [continued, invalid] = upstream.seen.slice(from);
    const call = sent(continued!.headers.traceparent);
    expect(call.traceId).toBe(TRACE);
    expect(call.spanId, 'the caller’s span passed on as the call’s').not.toBe(PARENT);
    expect(call.flags).toBe('01');
    expect(continued!.headers.tracestate).toBeUndefined();
    expect(sent(invalid!.headers.traceparent).traceId, 'an invalid traceparent was continued').not.toBe(TRACE);
    expect(accessLines(gateway.logs)[0]!.trace_id).toBe(TRACE);
  });

  it('sends the backend only the headers docs/upstream.md names, with its own User-Agent', async () => {
    expect(DOCUMENTED.size, 'the table of docs/upstream.md').toBeGreaterThanOrEqual(8);
    const gateway = upstreamGateway(upstream.url, { authorization: 'ApiKey gateway-own' });
    const from = upstream.seen.length;
    await gateway.get('/v2/species?q=headers', {
      Authorization: DEMO.key,
      'User-Agent': 'caller-agent/1.0',
      'Accept-Language': 'de',
      'Svc-Request-Id': 'caller-own-id',
      Cookie: 'a=b',
    });
    const seen = upstream.seen[from]!;
    const undocumented = Object.keys(seen.headers).filter((name) => !DOCUMENTED.has(name));
    expect(undocumented, JSON.stringify(seen.headers)).toEqual([]);
    expect(seen.headers['user-agent']).toBe('botanical-gateway');
    expect(seen.headers['svc-request-id']).toBe(accessLines(gateway.logs)[0]!.request_id);
    expect(seen.headers['accept-language'], 'the caller’s Accept-Language').not.toBe('de');
  });

  it('logs the backend’s status, time and cache result on the access line, and the trace on its other lines', async () => {
    const gateway = upstreamGateway(upstream.url, { tuning: { cacheTtlMs: 60_000, staleMs: 60_000 } });
    await gateway.get('/v2/species?q=cached');
    await gateway.get('/v2/species?q=cached');
    await gateway.get('/v2/species?q=failing');
    const [miss, hit, failed] = accessLines(gateway.logs);
    expect(miss).toMatchObject({ status: 200, backend: 'upstream', backend_status: 200, backend_outcome: 'ok', upstream_cache: 'miss' });
    expect(miss!.backend_duration_ms).toBeGreaterThan(0);
    expect(miss!.backend_duration_ms as number).toBeLessThanOrEqual(miss!.duration_ms as number);
    expect(hit).toMatchObject({ status: 200, upstream_cache: 'hit' });
    expect(hit!.backend_status, 'no backend call on a hit').toBeUndefined();
    // 503 is retried once: the line says what the last attempt got.
    expect(failed).toMatchObject({ status: 502, backend_status: 503, backend_outcome: '5xx', upstream_cache: 'miss' });
    const warnings = gateway.upstreamLogs.filter((l) => l.request_id === failed!.request_id);
    expect(warnings.length).toBeGreaterThan(0);
    for (const line of warnings) expect(line.trace_id, JSON.stringify(line)).toBe(failed!.trace_id);
  });
});

describe('trace context through the legacy backend (LEGACY_V1_URL)', () => {
  let legacy: LegacyV1;
  beforeAll(async () => {
    legacy = await legacyV1();
  });
  afterAll(() => legacy.close());

  it('V1_ANSWER=legacy: the backend gets the request’s trace and only the documented headers', async () => {
    const gateway = migrationApp(legacy, { V1_ANSWER: 'legacy', TRUST_TRACEPARENT: 'true' });
    const from = legacy.seen.length;
    const res = await gateway.get('/v1/species/ABAL3', { Authorization: DEMO.key, traceparent: INCOMING, tracestate: 'vendor=x' });
    expect(res.status).toBe(200);
    const seen = legacy.seen[from]!;
    expect(sent(seen.headers.traceparent).traceId).toBe(TRACE);
    expect(seen.headers.tracestate).toBeUndefined();
    expect(
      Object.keys(seen.headers).filter((name) => !DOCUMENTED.has(name)),
      JSON.stringify(seen.headers),
    ).toEqual([]);
    expect(accessLines(gateway.logs)[0]).toMatchObject({ trace_id: TRACE, backend: 'legacy', backend_status: 200, backend_outcome: 'ok' });
  });

  it('a shadow comparison asks the backend within the same trace, and its lines carry it', async () => {
    const gateway = migrationApp(legacy, { V1_COMPARE_PERCENT: '100' });
    const from = legacy.seen.length;
    await gateway.get('/v1/species?q=abies', { Authorization: DEMO.key });
    await gateway.settled();
    const line = accessLines(gateway.logs)[0]!;
    expect(sent(legacy.seen[from]!.headers.traceparent).traceId).toBe(line.trace_id);
    expect(gateway.lines('v1 comparison')[0]!.trace_id).toBe(line.trace_id);
  });
});

describe('the access line (docs/reference/observability.md)', () => {
  it('says where the request came from, with what client, and how many bytes went back', async () => {
    const t = diskApp({ env: { TRUST_PROXY: 'true' } });
    const long = `agent/${'x'.repeat(400)}`;
    const list = await t.get('/v2/species?q=abies', { Authorization: DEMO.key, 'User-Agent': long, 'X-Forwarded-For': '198.51.100.7, 203.0.113.9' });
    const listBytes = (await list.arrayBuffer()).byteLength;
    const refused = await t.get('/v2/species', { Authorization: 'ApiKey wrong-key' });
    const refusedBytes = (await refused.arrayBuffer()).byteLength;
    const health = await t.get('/healthz', {});
    const healthBytes = (await health.arrayBuffer()).byteLength;
    await t.get('/v2/species', { Authorization: DEMO.key }, { method: 'HEAD' });
    const [l, r, h, head] = accessLines(t.logs);
    expect(l).toMatchObject({ source_address: '203.0.113.9', user_agent: long.slice(0, 256), response_bytes: listBytes });
    expect(listBytes).toBeGreaterThan(1000);
    expect(r).toMatchObject({ status: 401, response_bytes: refusedBytes, user_agent: null });
    expect(h).toMatchObject({ status: 200, response_bytes: healthBytes });
    expect(head).toMatchObject({ method: 'HEAD', response_bytes: 0 });
    for (const line of [l, r, h, head]) expect(line!.trace_id, JSON.stringify(line)).toMatch(/^[0-9a-f]{32}$/);
    expect(l!.upstream_cache, 'bundled mode calls no backend').toBeUndefined();
  });

  it.each([
    ['a valid token', 'proxy-7f3a:42', 'proxy-7f3a:42'],
    ['128 visible characters', 'r'.repeat(128), 'r'.repeat(128)],
    ['129 characters', 'r'.repeat(129), undefined],
    ['a space', 'two words', undefined],
    ['non-ASCII', 'idé', undefined],
  ])('logs the caller’s Svc-Request-Id as client_request_id only when it is %s, never as the gateway’s id', async (_name, sentId, logged) => {
    const t = diskApp();
    const res = await t.get('/v2/species/ABAL3', { Authorization: DEMO.key, 'Svc-Request-Id': sentId });
    await json(res);
    const line = accessLines(t.logs)[0]!;
    expect(res.headers.get('Svc-Request-Id')).not.toBe(sentId);
    expect(line.request_id).toBe(res.headers.get('Svc-Request-Id'));
    expect(line.client_request_id).toBe(logged);
  });
});

describe('a real gateway process', () => {
  it('writes time on every line of any kind (start-up, warnings, access, shutdown) and the TCP peer as source address', async () => {
    // No TOKEN_SIGNING_SECRET and no CREDENTIALS_FILE: two warning lines at start-up.
    const gateway = await startGatewayProcess({ TOKEN_SIGNING_SECRET: '', CREDENTIALS_FILE: '' });
    try {
      const res = await fetch(`${gateway.origin}/v2/species/ABAL3`, { headers: { Authorization: DEMO.key, 'User-Agent': 'probe/1' } });
      await res.arrayBuffer();
      const exited = new Promise((resolve) => gateway.child.once('exit', resolve));
      gateway.child.kill('SIGTERM');
      await exited;
    } finally {
      await gateway.stop();
    }
    const lines = gateway.lines.map((l) => JSON.parse(l) as LogLine);
    expect(lines.filter((l) => l.level === 'warn').length, gateway.lines.join('\n')).toBeGreaterThanOrEqual(2);
    expect(lines.some((l) => l.message === 'gateway listening')).toBe(true);
    expect(lines.some((l) => String(l.message).includes('draining'))).toBe(true);
    for (const line of lines) expect(Date.parse(String(line.time)), JSON.stringify(line)).not.toBeNaN();
    const access = lines.find((l) => l.path === '/v2/species/ABAL3')!;
    expect(access).toMatchObject({ status: 200, source_address: '127.0.0.1', user_agent: 'probe/1' });
    expect(access.trace_id).toMatch(/^[0-9a-f]{32}$/);
  });
});
