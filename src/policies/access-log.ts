import { createMiddleware } from 'hono/factory';
import type { AppEnv, Services } from '../env';
import { routeTemplate } from '../migration/v1-routes';
import { ClientGone } from './client-body';
import { redactedTarget } from './redact';

/**
 * One JSON line per request (CONTRACT section 13), with credentials redacted from the path; a
 * refused credential adds `auth_failure` (place, code, client, source address: section 18).
 */
export const accessLog = (services: Pick<Services, 'log' | 'clock' | 'clientGone'>) =>
  createMiddleware<AppEnv>(async (c, next) => {
    const started = performance.now();
    await next();
    const caller = c.get('caller');
    services.log({
      time: new Date(services.clock.now()).toISOString(),
      request_id: c.get('requestId'),
      method: c.req.method,
      path: redactedTarget(c.req.url),
      version: c.get('version')?.name ?? null,
      // The template, not the path, so usage reports count routes rather than ids.
      route: c.get('version') ? routeTemplate(c.req.method, c.req.path.slice(c.get('base').length)) : null,
      // A caller that went away got no answer: no status is logged as if it had one, and whatever
      // the handler made of a half-read request is not the gateway's failure.
      ...(c.error instanceof ClientGone || services.clientGone(c) ? { level: 'info', aborted: true, status: null } : { status: c.res.status }),
      duration_ms: Math.round((performance.now() - started) * 100) / 100,
      subject: caller ? `${caller.principal.kind}:${caller.principal.id}` : null,
      credential: caller?.credential ?? null,
      ...(c.get('logFlags').length > 0 ? { flags: c.get('logFlags') } : {}),
      ...(c.get('authFailure') ? { auth_failure: c.get('authFailure') } : {}),
    });
  });
