import type { Context } from 'hono';
import { routePath } from 'hono/route';
import type { AppEnv, LogLine, Services } from '../env';
import { pathTemplate, routeTemplate } from '../migration/v1-routes';
import { UNMATCHED_ROUTE } from '../services/metrics';
import { consultedBackend } from './backend-facts';
import { ClientGone } from './client-body';
import type { Policy } from './policy';
import { redactedTarget } from './redact';

/**
 * One JSON line per request (CONTRACT section 13), with credentials redacted from the path; a
 * refused credential adds `auth_failure` (place, code, client, source address: section 18).
 * The same facts, once, are the request's observation for the metrics (section 20).
 */
export const accessLog = (services: Pick<Services, 'log' | 'clock' | 'clientGone' | 'metrics'>): Policy => {
  const time = isoTimes(services.clock);
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
      // Members in a fixed order, set one by one: no object spread per request.
      const line: LogLine = {
        time: time(),
        request_id: c.get('requestId'),
        method: c.req.method,
        path: redactedTarget(c.req.url),
        version: version?.name ?? null,
        // The template, not the path, so usage reports count routes rather than ids.
        route: version ? routeTemplate(c.req.method, c.req.path.slice(c.get('base').length)) : null,
      };
      // A caller that went away got no answer: no status is logged as if it had one, and whatever
      // the handler made of a half-read request is not the gateway's failure.
      if (c.error instanceof ClientGone || services.clientGone(c)) {
        line.level = 'info';
        line.aborted = true;
        line.status = null;
      } else {
        line.status = c.res.status;
      }
      const durationMs = performance.now() - c.get('startedAt');
      line.duration_ms = Math.round(durationMs * 100) / 100;
      line.subject = caller ? `${caller.principal.kind}:${caller.principal.id}` : null;
      line.credential = caller?.credential ?? null;
      if (flags.length > 0) line.flags = flags;
      if (authFailure) line.auth_failure = authFailure;
      services.log(line);
      const backend = consultedBackend(c);
      services.metrics.requestObserved({
        version: line.version as string | null,
        route: (version && pathTemplate(c.req.path.slice(c.get('base').length))) || registeredRoute(c),
        method: c.req.method,
        status: line.status as number | null,
        answeredBy: backend?.answered ? 'upstream' : 'gateway',
        durationMs,
        backend,
        credentialPlace: line.credential as string | null,
        subject: line.subject as string | null,
      });
    },
  };
};

/**
 * The route of a request that is not a resource's (`/healthz`, `/oauth/token`, `/v2/openapi.json`):
 * the path its route was registered with, never the path asked for; a path only a wildcard
 * matched is unmatched.
 */
function registeredRoute(c: Context<AppEnv>): string {
  const path = routePath(c, -1);
  return path === '' || path.endsWith('*') ? UNMATCHED_ROUTE : path;
}

/** The clock's time as RFC 3339, spelled once per millisecond however many lines share it. */
function isoTimes(clock: Services['clock']): () => string {
  let at = Number.NaN;
  let text = '';
  return () => {
    const now = clock.now();
    if (now !== at) {
      at = now;
      text = new Date(now).toISOString();
    }
    return text;
  };
}
