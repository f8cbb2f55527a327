/**
 * Optional OTLP export (docs/reference/observability.md): a real gateway process with
 * `OTEL_EXPORTER_OTLP_ENDPOINT` pointing at a local OTLP/HTTP receiver exports one server span per
 * request and one client span per call to its backend, with the ids the backend received in
 * `traceparent`; without the variable, no OpenTelemetry module is imported.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startGatewayProcess, type GatewayProcess } from '../../../tools/processes';
import { DEMO } from '../../support/harness';
import { type OtlpSpan, otlpReceiver, spanAttributes } from '../../support/otlp-receiver';
import { fakePage, fakeUpstream, pageOf, sendJson, sleep, type FakeUpstream } from '../../support/upstream';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

const attr = (span: OtlpSpan, key: string) => spanAttributes(span)[key];

describe('OTLP export (OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
  let upstream: FakeUpstream;
  let gateway: GatewayProcess;
  beforeAll(async () => {
    receiver = await otlpReceiver();
    upstream = await fakeUpstream((req, res) => sendJson(res, fakePage(pageOf(req))));
    gateway = await startGatewayProcess({
      UPSTREAM_URL: upstream.url,
      UPSTREAM_CACHE_TTL_MS: '0',
      UPSTREAM_STALE_MS: '0',
      TRUST_TRACEPARENT: 'true',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_SERVICE_NAME: 'gateway-under-test',
    });
  });
  afterAll(async () => {
    await gateway?.stop();
    await Promise.all([receiver?.close(), upstream?.close()]);
  });

  it('exports a server span per request and a client span per backend call, with the ids the backend saw', async () => {
    const res = await fetch(`${gateway.origin}/v2/species?q=otlp`, { headers: { Authorization: DEMO.key, traceparent: `00-${TRACE}-${PARENT}-01` } });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    for (let waited = 0; receiver.spans.filter((s) => s.traceId === TRACE).length < 2 && waited < 10_000; waited += 50) await sleep(50);
    const spans = receiver.spans.filter((s) => s.traceId === TRACE);
    expect(spans.length, JSON.stringify(receiver.paths)).toBe(2);
    expect(receiver.paths[0]).toMatch(/^POST \/v1\/traces application\/json/);
    const server = spans.find((s) => s.kind === 2)!;
    const client = spans.find((s) => s.kind === 3)!;
    expect(server, 'server span').toBeDefined();
    expect(client, 'client span').toBeDefined();
    expect(server.service).toBe('gateway-under-test');
    expect(server.parentSpanId).toBe(PARENT);
    expect(server.name).toBe('GET /v2/species');
    expect(attr(server, 'http.request.method')).toBe('GET');
    expect(attr(server, 'http.route')).toBe('/v2/species');
    expect(attr(server, 'http.response.status_code')).toBe(200);
    expect(attr(server, 'url.path')).toBe('/v2/species');
    expect(attr(server, 'client.address')).toBe('127.0.0.1');
    // The client span is the span the backend was told of in traceparent.
    const seen = upstream.seen.find((s) => s.url.includes('q=otlp'))!;
    expect(seen.headers.traceparent).toBe(`00-${TRACE}-${client.spanId}-01`);
    expect(client.parentSpanId).toBe(server.spanId);
    expect(attr(client, 'http.request.method')).toBe('GET');
    expect(attr(client, 'url.full')).toBe(`${upstream.url}/v2/species?q=otlp`);
    expect(attr(client, 'http.response.status_code')).toBe(200);
    expect(attr(client, 'server.address')).toBe('127.0.0.1');
    // The access line names the same trace.
    const line = gateway.lines.map((l) => JSON.parse(l)).find((l) => l.path === '/v2/species?q=otlp');
    expect(line?.trace_id).toBe(TRACE);
  });
});

describe('without OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('imports no OpenTelemetry module: only src/node/otlp.ts names one, by dynamic import, and only the Node entry imports it, dynamically', () => {
    const files = readdirSync(join(ROOT, 'src'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.ts'))
      .map((e) => join(e.parentPath, e.name));
    const naming = files.filter((f) => /['"]@opentelemetry\//.test(readFileSync(f, 'utf8')));
    expect(naming.map((f) => f.slice(ROOT.length))).toEqual(['src/node/otlp.ts']);
    const otlp = readFileSync(join(ROOT, 'src/node/otlp.ts'), 'utf8');
    // Type imports vanish when compiled; any other import of a package must be dynamic.
    expect(otlp.match(/^import (?!type ).*@opentelemetry.*$/gm)).toBeNull();
    const importers = files.filter((f) => /node\/otlp['"]/.test(readFileSync(f, 'utf8')));
    expect(importers.map((f) => f.slice(ROOT.length))).toEqual(['src/node.ts']);
    expect(readFileSync(join(ROOT, 'src/node.ts'), 'utf8')).toMatch(/await import\('\.\/node\/otlp'\)/);
  });
});
