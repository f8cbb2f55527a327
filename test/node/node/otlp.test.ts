/**
 * The OTLP/HTTP export of spans (src/node/otlp.ts, docs/reference/observability.md), in process against an
 * OTLP receiver on loopback: one server span per request and one client span per HTTP request to a
 * backend, with the request's trace and span ids (continuing the caller's span), the HTTP semantic
 * conventions' attributes, an error status for 5xx, aborted requests and failed backend calls,
 * the service name from `OTEL_SERVICE_NAME` or the gateway's, and what is batched exported at
 * shutdown. otlp.test.ts checks the same export from a gateway process, through requests.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RequestTrace } from '../../../src/core/request-trace';
import { otlpExport } from '../../../src/node/otlp';
import type { RequestFacts } from '../../../src/services/request-facts';
import { type OtlpReceiver, otlpReceiver, spanAttributes } from '../../support/otlp-receiver';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

const receivers: OtlpReceiver[] = [];
const ENV = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_SERVICE_NAME', 'OTEL_BSP_SCHEDULE_DELAY'] as const;
const saved = Object.fromEntries(ENV.map((name) => [name, process.env[name]]));
afterEach(async () => {
  for (const name of ENV) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

/** An OTLP/HTTP receiver on loopback, set as the exporter's endpoint: every span it received, with its service name. */
async function receiver(): Promise<OtlpReceiver> {
  const received = await otlpReceiver();
  receivers.push(received);
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = received.url;
  // Nothing leaves before shutdown: the test sees what shutdown exports.
  process.env.OTEL_BSP_SCHEDULE_DELAY = '600000';
  return received;
}

/** The facts of one request, with what a test sets. */
function facts(over: Partial<RequestFacts> = {}): RequestFacts {
  return {
    version: 'v2',
    route: 'GET /species/{id}',
    method: 'GET',
    status: 200,
    answeredBy: 'gateway',
    durationMs: 12.5,
    backend: undefined,
    cache: undefined,
    subject: 'project:acme',
    responseBytes: 100,
    trace: RequestTrace.start(),
    startedAtMs: Date.parse('2026-11-21T12:00:00.250Z'),
    target: '/v2/species/ABBA',
    httpRoute: '/v2/species/{id}',
    userAgent: 'curl/8',
    sourceAddress: '192.0.2.7',
    ...over,
  };
}

/** OTLP's span kinds and status codes, as the wire has them. */
const KIND = { server: 2, client: 3 };
const STATUS_ERROR = 2;

describe('the OTLP export', () => {
  it('sends a request as a server span with its ids, times and attributes, under the gateway’s service name', async () => {
    const received = await receiver();
    delete process.env.OTEL_SERVICE_NAME;
    const otlp = await otlpExport('botanical-gateway');
    const trace = RequestTrace.start();
    otlp.record(facts({ trace, target: '/v2/species/ABBA?q=fir&page=2' }));
    await otlp.shutdown();
    expect(received.paths).toEqual(['POST /v1/traces application/json']);
    expect(received.spans).toHaveLength(1);
    const [span] = received.spans;
    expect(span).toMatchObject({
      traceId: trace.traceId,
      spanId: trace.spanId,
      name: 'GET /v2/species/{id}',
      kind: KIND.server,
      service: 'botanical-gateway',
      scope: 'botanical-gateway',
    });
    expect(span?.parentSpanId || undefined).toBeUndefined();
    expect(span?.status?.code ?? 0).toBe(0);
    expect(String(span?.startTimeUnixNano)).toBe('1795262400250000000');
    expect(String(span?.endTimeUnixNano)).toBe('1795262400262500000');
    expect(spanAttributes(span)).toEqual({
      'http.request.method': 'GET',
      'url.path': '/v2/species/ABBA',
      'url.query': 'q=fir&page=2',
      'url.scheme': 'http',
      'http.route': '/v2/species/{id}',
      'http.response.status_code': 200,
      'user_agent.original': 'curl/8',
      'client.address': '192.0.2.7',
      'botanical.api_version': 'v2',
      'botanical.answered_by': 'gateway',
    });
  });

  it('continues the caller’s span, names OTEL_SERVICE_NAME, and marks 5xx and aborted requests as errors', async () => {
    const received = await receiver();
    process.env.OTEL_SERVICE_NAME = 'named-by-operator';
    const otlp = await otlpExport('botanical-gateway');
    const continued = RequestTrace.start({ traceId: TRACE, parentId: PARENT, flags: 1 });
    otlp.record(facts({ trace: continued, status: 503, answeredBy: 'upstream', cache: 'miss' }));
    otlp.record(facts({ status: null, httpRoute: null, version: null, userAgent: null, sourceAddress: null, method: 'POST', target: '/nowhere' }));
    otlp.record(facts({ status: 500 }));
    otlp.record(facts({ status: 499 }));
    await otlp.shutdown();
    const [failed, aborted, internal, below] = received.spans;
    // 500 is the first error status, 499 is not one.
    expect([internal?.status?.code, spanAttributes(internal)['error.type']]).toEqual([STATUS_ERROR, '500']);
    expect([below?.status?.code ?? 0, spanAttributes(below)['error.type']]).toEqual([0, undefined]);
    expect(failed).toMatchObject({ traceId: TRACE, parentSpanId: PARENT, spanId: continued.spanId, service: 'named-by-operator' });
    expect(failed?.status?.code).toBe(STATUS_ERROR);
    expect(spanAttributes(failed)).toMatchObject({ 'error.type': '503', 'botanical.answered_by': 'upstream', 'botanical.upstream_cache': 'miss' });
    expect(aborted?.name).toBe('POST');
    expect(aborted?.status?.code).toBe(STATUS_ERROR);
    expect(spanAttributes(aborted)).toEqual({
      'http.request.method': 'POST',
      'url.path': '/nowhere',
      'url.scheme': 'http',
      'botanical.answered_by': 'gateway',
      'error.type': 'aborted',
    });
  });

  it('sends each HTTP request to a backend as a client span under the request’s span', async () => {
    const received = await receiver();
    const otlp = await otlpExport('botanical-gateway');
    const trace = RequestTrace.start();
    const startMs = Date.parse('2026-11-21T12:00:00.260Z');
    const attempts = [
      {
        spanId: 'a'.repeat(16),
        backend: 'upstream',
        url: 'http://backend.internal/v2/species?q=fir',
        startMs,
        durationMs: 3,
        status: 502,
        error: 'status 502',
      },
      {
        spanId: 'b'.repeat(16),
        backend: 'upstream',
        url: 'https://backend.internal/v2/species?q=fir',
        startMs: startMs + 5,
        durationMs: 1,
        status: null,
        error: 'timeout',
      },
      {
        spanId: 'd'.repeat(16),
        backend: 'upstream',
        url: 'http://backend.internal/v2/species/NOPE',
        startMs: startMs + 6,
        durationMs: 1,
        status: 400,
        error: 'status 400',
      },
      {
        spanId: 'e'.repeat(16),
        backend: 'upstream',
        url: 'http://backend.internal/v2/species/ABBA',
        startMs: startMs + 6,
        durationMs: 1,
        status: 200,
        error: 'invalid body',
      },
      {
        spanId: 'c'.repeat(16),
        backend: 'legacy',
        url: 'http://legacy.internal:8081/api/v1/species',
        startMs: startMs + 7,
        durationMs: 2,
        status: 200,
        error: undefined,
      },
    ] as const;
    for (const attempt of attempts) trace.noteAttempt({ ...attempt });
    otlp.record(facts({ trace }));
    await otlp.shutdown();
    const clients = received.spans.filter((s) => s.kind === KIND.client);
    expect(clients.map((s) => [s.spanId, s.parentSpanId, s.traceId, s.name])).toEqual(attempts.map((a) => [a.spanId, trace.spanId, trace.traceId, 'GET']));
    expect(clients.map(spanAttributes)).toEqual([
      {
        'http.request.method': 'GET',
        'url.full': 'http://backend.internal/v2/species?q=fir',
        'server.address': 'backend.internal',
        'server.port': 80,
        'botanical.backend': 'upstream',
        'http.response.status_code': 502,
        'error.type': '502',
      },
      {
        'http.request.method': 'GET',
        'url.full': 'https://backend.internal/v2/species?q=fir',
        'server.address': 'backend.internal',
        'server.port': 443,
        'botanical.backend': 'upstream',
        'error.type': 'no_answer',
      },
      // An answer of 4xx names its status; an answer that was not a usable one (a 200 whose body
      // could not be read) did not answer.
      {
        'http.request.method': 'GET',
        'url.full': 'http://backend.internal/v2/species/NOPE',
        'server.address': 'backend.internal',
        'server.port': 80,
        'botanical.backend': 'upstream',
        'http.response.status_code': 400,
        'error.type': '400',
      },
      {
        'http.request.method': 'GET',
        'url.full': 'http://backend.internal/v2/species/ABBA',
        'server.address': 'backend.internal',
        'server.port': 80,
        'botanical.backend': 'upstream',
        'http.response.status_code': 200,
        'error.type': 'no_answer',
      },
      {
        'http.request.method': 'GET',
        'url.full': 'http://legacy.internal:8081/api/v1/species',
        'server.address': 'legacy.internal',
        'server.port': 8081,
        'botanical.backend': 'legacy',
        'http.response.status_code': 200,
      },
    ]);
    expect(clients.map((s) => [s.status?.code ?? 0, s.status?.message])).toEqual([
      [STATUS_ERROR, 'status 502'],
      [STATUS_ERROR, 'timeout'],
      [STATUS_ERROR, 'status 400'],
      [STATUS_ERROR, 'invalid body'],
      [0, undefined],
    ]);
    expect(clients.map((s) => [String(s.startTimeUnixNano), String(s.endTimeUnixNano)])).toEqual([
      ['1795262400260000000', '1795262400263000000'],
      ['1795262400265000000', '1795262400266000000'],
      ['1795262400266000000', '1795262400267000000'],
      ['1795262400266000000', '1795262400267000000'],
      ['1795262400267000000', '1795262400269000000'],
    ]);
  });
});
