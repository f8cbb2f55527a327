/**
 * Optional OTLP/HTTP export of spans (docs/reference/observability.md), on Node only: one server span per
 * request and one client span per HTTP request to a backend, with the ids the access line and the
 * backends' `traceparent` carry, so a tracing backend, the log and the backend's own log agree.
 * The OpenTelemetry packages are imported only from here, and this module only by the Node entry
 * when `OTEL_EXPORTER_OTLP_ENDPOINT` is set: without it nothing of them is loaded.
 *
 * Only the exporter and its batching are OpenTelemetry's; the spans are the gateway's own facts
 * (src/core/request-trace.ts), so no SDK context or instrumentation runs per request. The exporter
 * reads OpenTelemetry's own variables (`OTEL_EXPORTER_OTLP_ENDPOINT`, `..._TRACES_ENDPOINT`,
 * `..._HEADERS`, `OTEL_BSP_SCHEDULE_DELAY`, ...); `OTEL_SERVICE_NAME` names the service.
 */
import type { Attributes, HrTime, SpanContext } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import type { BackendAttempt, RequestTrace } from '../core/request-trace';
import type { RecordRequest, RequestFacts } from '../services/request-facts';

/** OpenTelemetry's `SpanKind` and `SpanStatusCode` values (the API package need not be loaded for two numbers). */
const SERVER = 1;
const CLIENT = 2;
const UNSET = 0;
const ERROR = 2;

export interface OtlpExport {
  record: RecordRequest;
  /** Exports what is still batched; the entry awaits it before the process exits. */
  shutdown(): Promise<void>;
}

export async function otlpExport(serviceName: string): Promise<OtlpExport> {
  const [{ OTLPTraceExporter }, { BatchSpanProcessor }, { resourceFromAttributes }] = await Promise.all([
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/resources'),
  ]);
  const processor = new BatchSpanProcessor({ exporter: new OTLPTraceExporter() });
  const common = {
    resource: resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME || serviceName }),
    instrumentationScope: { name: 'botanical-gateway' },
    links: [],
    events: [],
    ended: true,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
  return {
    record(facts) {
      processor.onEnd({ ...common, ...serverSpan(facts) } as ReadableSpan);
      for (const attempt of facts.trace.attempts ?? []) processor.onEnd({ ...common, ...clientSpan(facts.trace, attempt) } as ReadableSpan);
    },
    shutdown: () => processor.shutdown(),
  };
}

/** The request as a server span (HTTP semantic conventions), a child of the caller's span when its trace was continued. */
function serverSpan(f: RequestFacts) {
  const query = f.target.indexOf('?');
  const attributes: Attributes = {
    'http.request.method': f.method,
    'url.path': query < 0 ? f.target : f.target.slice(0, query),
    'url.scheme': 'http',
  };
  if (query >= 0) attributes['url.query'] = f.target.slice(query + 1);
  if (f.httpRoute !== null) attributes['http.route'] = f.httpRoute;
  if (f.status !== null) attributes['http.response.status_code'] = f.status;
  if (f.userAgent !== null) attributes['user_agent.original'] = f.userAgent;
  if (f.sourceAddress !== null) attributes['client.address'] = f.sourceAddress;
  if (f.version !== null) attributes['botanical.api_version'] = f.version;
  attributes['botanical.answered_by'] = f.answeredBy;
  if (f.cache !== undefined) attributes['botanical.upstream_cache'] = f.cache;
  const error = f.status === null ? 'aborted' : f.status >= 500 ? String(f.status) : undefined;
  if (error !== undefined) attributes['error.type'] = error;
  return {
    name: f.httpRoute === null ? f.method : `${f.method} ${f.httpRoute}`,
    kind: SERVER,
    spanContext: () => context(f.trace, f.trace.spanId),
    parentSpanContext: f.trace.parentId === undefined ? undefined : context(f.trace, f.trace.parentId),
    ...times(f.startedAtMs, f.durationMs),
    status: { code: error === undefined ? UNSET : ERROR },
    attributes,
  };
}

/** One HTTP request to a backend as a client span under the request's server span. */
function clientSpan(trace: RequestTrace, a: BackendAttempt) {
  const url = new URL(a.url);
  const attributes: Attributes = {
    'http.request.method': 'GET',
    'url.full': a.url,
    'server.address': url.hostname,
    'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
    'botanical.backend': a.backend,
  };
  if (a.status !== null) attributes['http.response.status_code'] = a.status;
  const failed = a.error !== undefined;
  if (failed) attributes['error.type'] = a.status !== null && a.status >= 400 ? String(a.status) : 'no_answer';
  return {
    name: 'GET',
    kind: CLIENT,
    spanContext: () => context(trace, a.spanId),
    parentSpanContext: context(trace, trace.spanId),
    ...times(a.startMs, a.durationMs),
    status: failed ? { code: ERROR, message: a.error } : { code: UNSET },
    attributes,
  };
}

function context(trace: RequestTrace, spanId: string): SpanContext {
  return { traceId: trace.traceId, spanId, traceFlags: trace.flags };
}

/** Start, end and duration as OpenTelemetry's `[seconds, nanoseconds]`. */
function times(startMs: number, durationMs: number): { startTime: HrTime; endTime: HrTime; duration: HrTime } {
  return { startTime: hr(startMs), endTime: hr(startMs + durationMs), duration: hr(durationMs) };
}

function hr(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
}
