import { formatTraceparent, newSpanId, newTraceId, type TraceParent } from './trace-context';

/** The backends the gateway calls: `UPSTREAM_URL`'s and `LEGACY_V1_URL`'s. */
export type BackendName = 'upstream' | 'legacy';

/**
 * How a call to a backend ended (docs/reference/observability.md): an answer the gateway used, no answer in
 * time, no connection, a 5xx, not called because the breaker is open, or an answer it could not
 * use (a malformed body, a refused gateway credential, an unexpected status).
 */
export type BackendOutcome = 'ok' | 'timeout' | 'refused' | '5xx' | 'breaker_open' | 'invalid';

/** Where an upstream read was answered from: a fresh entry, a stale one, the backend, or another request's call. */
export type CacheResult = 'hit' | 'stale' | 'miss' | 'coalesced';

/** One call to a backend for a request: its attempts (a retry included) as one. */
export interface BackendCall {
  backend: BackendName;
  /** The HTTP status of its last attempt; null when none came (timeout, no connection, breaker open). */
  status: number | null;
  durationMs: number;
  outcome: BackendOutcome;
}

/** One HTTP request to a backend (an attempt: a retry is another), as a tracing exporter sees it (OTLP: a client span). */
export interface BackendAttempt {
  /** The span id its `traceparent` carried. */
  spanId: string;
  backend: BackendName;
  url: string;
  /** `Date.now()` at its start, and how long it took. */
  startMs: number;
  durationMs: number;
  status: number | null;
  /** Why it gave no usable answer (the log's reason), when it did not. */
  error: string | undefined;
}

/**
 * A request's trace (docs/reference/observability.md): its id (the caller's with `TRUST_TRACEPARENT`, else
 * a new one), the gateway's own span, and what its backends did, for the access line. Each call
 * to a backend gets a span id of its own under the gateway's span.
 */
export class RequestTrace {
  private ownSpan: string | undefined;
  /** The calls to backends made for this request, in order; undefined while there are none. */
  calls: BackendCall[] | undefined;
  /** How the last upstream read was answered (docs/reference/observability.md: the access line's upstream cache result). */
  cache: CacheResult | undefined;
  /** Each HTTP request made to a backend for this request, for a tracing exporter. */
  attempts: BackendAttempt[] | undefined;

  private constructor(
    readonly traceId: string,
    /** The caller's span, when its `traceparent` was continued. */
    readonly parentId: string | undefined,
    readonly flags: number,
  ) {}

  /**
   * Continues `incoming` (a valid `traceparent` the gateway was told to trust), or starts a new
   * trace, sampled: the gateway records every request, in its access line.
   */
  static start(incoming?: TraceParent): RequestTrace {
    return incoming ? new RequestTrace(incoming.traceId, incoming.parentId, incoming.flags) : new RequestTrace(newTraceId(), undefined, 1);
  }

  /** `start` without drawing a trace id: only for the benchmark of what trace context costs (`PolicyOptions`). */
  static startUntraced(incoming?: TraceParent): RequestTrace {
    return incoming ? RequestTrace.start(incoming) : new RequestTrace('', undefined, 1);
  }

  /** The gateway's span of this request, the parent of every backend call's span: drawn when first needed (an exporter). */
  get spanId(): string {
    this.ownSpan ??= newSpanId();
    return this.ownSpan;
  }

  /** The `traceparent` of one request to a backend: this trace, a new span under the gateway's. */
  outgoing(): { spanId: string; traceparent: string } {
    const spanId = newSpanId();
    return { spanId, traceparent: formatTraceparent(this.traceId, spanId, this.flags) };
  }

  noteCall(call: BackendCall): void {
    (this.calls ??= []).push(call);
  }

  noteAttempt(attempt: BackendAttempt): void {
    (this.attempts ??= []).push(attempt);
  }
}
