/**
 * Answers for requests the HTTP layer refuses before the app sees them (docs/reference/requests.md):
 * the app's problem+json, request id and access-log line, so a refused request looks like any
 * other to clients and operators.
 */
import { STATUS_CODES } from 'node:http';
import type { Config } from '../config';
import type { LogLine } from '../services/log';
import { newTraceId } from '../core/trace-context';
import { ApiError } from '../core/api-error';
import type { ErrorCode } from '../core/error-codes';
import { problemJson } from '../policies/render-error';
import { NO_STORE } from '../core/cache-control';
import { REQUEST_ID_HEADER } from '../core/request-id';
import type { Clock } from '../services/clock';
import type { Metrics } from '../services/metrics';

export interface RejectionDeps {
  config: Pick<Config, 'docsUrl' | 'serviceName'>;
  log(line: LogLine): void;
  clock: Clock;
  /** Counts each refusal by status; none unless given. */
  metrics?: Pick<Metrics, 'httpRejection'>;
}

/** What is known of the refused request: often nothing but why it was refused. */
export interface Refused {
  /** Node's error code or our reason (`HPE_INVALID_HEADER_TOKEN`, `ERR_HTTP_REQUEST_TIMEOUT`, `CONNECT`, ...). */
  reason: string;
  method?: string;
  target?: string;
  headers?: Record<string, string>;
}

export interface Rejection {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * The path of a target for the log, never its query, where a credential may be; an absolute or
 * authority target (which may carry user info) only as the path after its authority.
 */
function logPath(target: string | undefined): string | null {
  if (target === undefined) return null;
  const path = target.startsWith('/') || target === '*' ? target : /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*(\/[^?#]*)/i.exec(target)?.[1];
  return path === undefined ? null : path.split('?')[0]!.slice(0, 200);
}

/** The access-log line of a request the app never saw. */
function logLine(deps: RejectionDeps, requestId: string, refused: Refused, outcome: Record<string, unknown>) {
  deps.log({
    time: new Date(deps.clock.now()).toISOString(),
    request_id: requestId,
    // A request the app never saw still starts a trace of its own: every request line has one.
    trace_id: newTraceId(),
    method: refused.method?.slice(0, 20) ?? null,
    path: logPath(refused.target),
    version: null,
    route: null,
    ...outcome,
    duration_ms: null,
    subject: null,
    credential: null,
    rejected: refused.reason,
  });
}

/** A client that left while its request's head was arriving: logged, never answered. */
export function logAborted(deps: RejectionDeps, refused: Refused): void {
  logLine(deps, crypto.randomUUID(), refused, { level: 'info', aborted: true, status: null });
}

/** The answer to a refused request, logged as one access-log line. */
export function rejection(deps: RejectionDeps, code: ErrorCode, detail: string, refused: Refused): Rejection {
  const requestId = crypto.randomUUID();
  const error = new ApiError(code, detail, refused.headers);
  const body = JSON.stringify(problemJson(error, deps.config, requestId).body);
  const now = deps.clock.now();
  logLine(deps, requestId, refused, { status: error.status });
  deps.metrics?.httpRejection(error.status);
  return {
    status: error.status,
    headers: {
      ...error.headers,
      'Content-Type': 'application/problem+json',
      'Cache-Control': NO_STORE,
      'Content-Length': String(Buffer.byteLength(body)),
      [REQUEST_ID_HEADER]: requestId,
      Date: new Date(now).toUTCString(),
      // The connection's state is unknown (a half-read request), so it is not reused.
      Connection: 'close',
    },
    body,
  };
}

/** The rejection as HTTP/1.1 bytes, for a socket no ServerResponse owns. */
export function rawResponse({ status, headers, body }: Rejection): string {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${lines.join('')}\r\n${body}`;
}
