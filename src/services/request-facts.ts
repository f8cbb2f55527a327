import type { BackendCall, CacheResult, RequestTrace } from '../core/request-trace';

/**
 * What one request came to, for a metrics sink (docs/reference/observability.md): only bounded values (the
 * route template, never the path; the version, method and status), plus the subject, which a
 * sink may use as an index but never as a label.
 */
export interface RequestFacts {
  /** `v1`, `v2`, `v3`, or null outside a version (`/healthz`, `/oauth/token`, an unknown path). */
  version: string | null;
  /** `GET /species/{id}`, or null where no versioned route matched. */
  route: string | null;
  method: string;
  /** Null when the caller left before its answer. */
  status: number | null;
  /** `upstream` when a backend's answer to this request made the response, else `gateway` (a cached copy included). */
  answeredBy: 'gateway' | 'upstream';
  durationMs: number;
  /** The last call to a backend made for the request, its time being that of all of them. */
  backend: BackendCall | undefined;
  cache: CacheResult | undefined;
  /** `project:<id>`, `member:<id>`, `client:<id>`, or null when no caller was authenticated. */
  subject: string | null;
  responseBytes: number | null;
  /** The request's trace, with each HTTP request made to a backend (a tracing exporter's client spans). */
  trace: RequestTrace;
  /** `Date.now()` when the request reached the gateway. */
  startedAtMs: number;
  /** The path and query, credentials redacted (the access line's `path`). */
  target: string;
  /** The route with the base the caller used (`/v2/species/{id}`), or null where no versioned route matched. */
  httpRoute: string | null;
  userAgent: string | null;
  sourceAddress: string | null;
}

/** Where a request's facts go once its access line is written (Workers: an Analytics Engine data point). */
export type RecordRequest = (facts: RequestFacts) => void;
