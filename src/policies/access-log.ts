import type { Context } from 'hono';
import { routePath } from 'hono/route';
import type { Config } from '../config';
import { isoTimes } from '../core/iso-time';
import type { RequestTrace } from '../core/request-trace';
import type { AppEnv, Services } from '../env';
import type { RequestFacts } from '../services/request-facts';
import { pathTemplate, withMethod } from '../core/route-template';
import { UNMATCHED_ROUTE, type AnsweredBy } from '../services/metrics';
import { ClientGone } from './client-body';
import type { Policy } from './policy';
import { redactedTarget } from '../core/redact';
import { bodyBytes } from './response-headers';
import { sourceAddress } from './source-address';
import type { LogLine } from '../services/log';
import type { AccessFacts } from '../migration/plan/usage';

/** The longest `User-Agent` the line keeps (docs/reference/observability.md): enough to name any real client. */
const MAX_USER_AGENT = 256;

/**
 * One JSON line per request (docs/reference/requests.md and docs/reference/observability.md), with credentials redacted from the
 * path: its trace, the caller's own request id when valid, where it came from and with what
 * client, what was sent back and, where a backend was called, the backend's status, time and the
 * upstream cache's result, so the gateway's own time and the backend's can be told apart. A
 * refused credential adds `auth_failure` (place, code, client, source address: docs/reference/requests.md).
 * The same facts, once, are the request's observation for the metrics (docs/reference/observability.md).
 */
export const accessLog = (
  config: Pick<Config, 'trustProxy'>,
  services: Pick<Services, 'log' | 'clock' | 'clientGone' | 'connection' | 'header' | 'recordRequest' | 'metrics' | 'usage'>,
  traced = true,
): Policy => {
  const time = isoTimes(services.clock);
  /**
   * The line written and the request's facts recorded, once its size is known. Made once, not a
   * closure per request: V8 left that closure in its baseline code, about a tenth of a page's CPU.
   */
  const finish = (
    c: Context<AppEnv>,
    line: LogLine,
    flags: readonly string[],
    template: string | null,
    trace: RequestTrace,
    answeredBy: AnsweredBy,
    backend: RequestFacts['backend'],
    bytes: number | null,
  ): void => {
    line.response_bytes = bytes;
    services.log(line);
    if (services.usage) services.usage.record(usageFacts(line, flags, time));
    if (services.recordRequest) {
      const httpRoute = template === null ? null : c.get('base') + template;
      services.recordRequest(factsOf(line, trace, answeredBy, backend, httpRoute, services.clock.now()));
    }
  };
  return {
    before(c) {
      c.set('startedAt', performance.now());
      return undefined;
    },
    after(c) {
      const version = c.get('version');
      const caller = c.get('caller');
      const flags = c.get('logFlags');
      const authFailure = c.get('authFailure');
      const trace = c.get('trace');
      const clientRequestId = c.get('clientRequestId');
      // Members in a fixed order, set one by one: no object spread per request.
      // Untraced only for the benchmark of what trace context costs (`PolicyOptions`).
      const line: LogLine = traced ? { time: time(), request_id: c.get('requestId'), trace_id: trace.traceId } : { request_id: c.get('requestId') };
      if (clientRequestId !== undefined) line.client_request_id = clientRequestId;
      line.method = c.req.method;
      line.path = redactedTarget(c.req.url);
      line.version = version?.name ?? null;
      // The template, not the path, so usage reports count routes rather than ids.
      const template = version ? pathTemplate(c.req.path.slice(c.get('base').length)) : null;
      line.route = withMethod(c.req.method, template);
      // A caller that went away got no answer: no status is logged as if it had one, and whatever
      // the handler made of a half-read request is not the gateway's failure.
      const aborted = c.error instanceof ClientGone || services.clientGone(c);
      if (aborted) {
        line.level = 'info';
        line.aborted = true;
        line.status = null;
      } else {
        line.status = c.res.status;
      }
      const durationMs = performance.now() - c.get('startedAt');
      line.duration_ms = Math.round(durationMs * 100) / 100;
      line.subject = caller ? `${caller.principal.kind}:${caller.principal.id}` : null;
      // A throttled request still names where its credential came (never the secret).
      line.credential = caller?.credential ?? c.get('throttledCredential') ?? null;
      const forwardedFor = config.trustProxy ? services.header(c, 'x-forwarded-for') : undefined;
      line.source_address = sourceAddress(services.connection(c), forwardedFor, config.trustProxy) ?? null;
      line.user_agent = services.header(c, 'user-agent')?.slice(0, MAX_USER_AGENT) ?? null;
      if (trace.calls !== undefined || trace.cache !== undefined) backendFacts(line, trace);
      if (flags.length > 0) line.flags = flags;
      if (authFailure) line.auth_failure = authFailure;
      const answeredBy = whoAnswered(trace, line.status as number | null);
      const last = trace.calls?.[trace.calls.length - 1];
      // The last call, with the time of all of them (the access line's backend_duration_ms).
      const backend = last && { ...last, durationMs: line.backend_duration_ms as number };
      services.metrics.requestObserved({
        version: line.version as string | null,
        route: template ?? registeredRoute(c),
        method: c.req.method,
        status: line.status as number | null,
        answeredBy,
        durationMs,
        backend,
        cache: trace.cache,
        credentialPlace: line.credential as string | null,
        subject: line.subject as string | null,
      });
      // HEAD sends no body; an aborted request was sent nothing it is known to have received.
      const size = aborted ? null : c.req.method === 'HEAD' ? 0 : bodyBytes(c);
      if (typeof size === 'number' || size === null) return finish(c, line, flags, template, trace, answeredBy, backend, size);
      return size.then((bytes) => finish(c, line, flags, template, trace, answeredBy, backend, bytes));
    },
  };
};

/**
 * What the backends did for the request: the last call's backend, status and outcome, the time
 * of all its calls (a v1 page past the last asks twice), and where the upstream read came from.
 */
function backendFacts(line: LogLine, trace: RequestTrace): void {
  const calls = trace.calls;
  if (calls !== undefined) {
    const last = calls[calls.length - 1]!;
    let ms = 0;
    for (const call of calls) ms += call.durationMs;
    line.backend = last.backend;
    line.backend_status = last.status;
    line.backend_outcome = last.outcome;
    line.backend_duration_ms = Math.round(ms * 100) / 100;
  }
  if (trace.cache !== undefined) line.upstream_cache = trace.cache;
}

/** The line's facts a client's usage counts (src/migration/plan/usage.ts). */
function usageFacts(line: LogLine, flags: readonly string[], time: () => string): AccessFacts {
  return {
    time: (line.time as string | undefined) ?? time(),
    version: line.version as string | null,
    subject: line.subject as string | null,
    credential: line.credential as string | null,
    path: line.path as string,
    route: line.route as string | null,
    status: line.status as number | null,
    brownout: flags.length > 0 && flags.includes('brownout'),
  };
}

/** The line's facts for a metrics sink, typed (the line is what the log says of them). */
function factsOf(
  line: LogLine,
  trace: RequestTrace,
  answeredBy: AnsweredBy,
  backend: RequestFacts['backend'],
  httpRoute: string | null,
  now: number,
): RequestFacts {
  const status = line.status as number | null;
  return {
    version: line.version as string | null,
    route: line.route as string | null,
    method: line.method as string,
    status,
    answeredBy,
    durationMs: line.duration_ms as number,
    backend,
    cache: trace.cache,
    subject: line.subject as string | null,
    responseBytes: line.response_bytes as number | null,
    trace,
    startedAtMs: now - (line.duration_ms as number),
    target: line.path as string,
    httpRoute,
    userAgent: line.user_agent as string | null,
    sourceAddress: line.source_address as string | null,
  };
}

/**
 * Who made the response (docs/reference/observability.md): `upstream` when a backend's answer to this request
 * made it (its own call, or the one it joined while the same read was under way), `gateway` for a
 * cached copy (fresh or stale), an error, or anything the gateway answered alone.
 */
function whoAnswered(trace: RequestTrace, status: number | null): AnsweredBy {
  if (status === null || status >= 500 || trace.cache === 'stale') return 'gateway';
  if (trace.cache === 'coalesced') return 'upstream';
  return trace.calls?.[trace.calls.length - 1]?.outcome === 'ok' ? 'upstream' : 'gateway';
}

/**
 * The route of a request that is not a resource's (`/healthz`, `/oauth/token`, `/v2/openapi.json`):
 * the path its route was registered with, never the path asked for; a path no route matched, or
 * only a wildcard did (a middleware's), is unmatched.
 */
function registeredRoute(c: Context<AppEnv>): string {
  const path = routePath(c, -1);
  return path === '' || path.endsWith('*') ? UNMATCHED_ROUTE : path;
}
