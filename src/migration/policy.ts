import type { Context } from 'hono';
import { etag } from 'hono/etag';
import { createMiddleware } from 'hono/factory';
import type { MigrationConfig } from '../config';
import type { AppEnv, Services } from '../env';
import { requireAccess } from '../policies/auth';
import { redactedTarget } from '../core/redact';
import type { Side } from './compare';
import { compareInBackground, notMade } from './comparator';
import { forwardedTarget, rewriteLinks } from './forward';
import type { LegacyBackend } from './legacy-backend';
import { sampled } from './sampling';
import { matchV1Route, type V1Route } from './v1-routes';

type Shadow = (c: Context<AppEnv>) => Promise<Side>;

/** Comparisons running at once, per gateway (process or isolate). */
const MAX_IN_FLIGHT = 32;

/** The legacy backend's answer to the caller's request, in the caller's terms (its base in links). */
async function askLegacy(c: Context<AppEnv>, legacy: LegacyBackend, legacyUrl: string): Promise<Side & { lastModified: string | null }> {
  const answer = await legacy.get(forwardedTarget(c.req.url, c.get('base')), { requestId: c.get('requestId'), trace: c.get('trace') });
  return { status: answer.status, body: rewriteLinks(answer.body, legacyUrl, c.get('base')), lastModified: answer.lastModified };
}

/**
 * Who answers v1 callers, and which answers are compared (docs/reference/migration.md). It runs on v1
 * paths after every policy, so the caller has been authenticated, counted, checked for
 * retirement and brownouts; v1's deprecation headers and the gateway's own request id are added
 * to whatever it returns. Only v1's routes are switched; the gateway answers anything else itself.
 */
export function v1Migration(settings: MigrationConfig, services: Services, facade: Shadow) {
  const { legacy } = services;
  const legacyUrl = settings.legacyUrl!;
  let inFlight = 0;
  return createMiddleware<AppEnv>(async (c, next) => {
    const route = legacy && matchV1Route(c.req.method, c.req.path.slice(c.get('base').length));
    if (!route) return next();
    requireAccess(c, route.resource);
    const compare = sampled(c.get('requestId'), settings.comparePercent);
    const caller = c.get('caller');
    const about = {
      requestId: c.get('requestId'),
      traceId: c.get('trace').traceId,
      subject: caller ? `${caller.principal.kind}:${caller.principal.id}` : null,
      route: route.template,
      path: redactedTarget(c.req.url),
    };
    const inBackground = (answeredBy: 'facade' | 'legacy', answered: () => Promise<Side>, other: () => Promise<Side>) =>
      services.afterResponse(c, async () => {
        // Past this many at once the gateway is busy: callers come first, the comparison is skipped.
        if (inFlight >= MAX_IN_FLIGHT) {
          notMade(about, answeredBy, `more than ${MAX_IN_FLIGHT} comparisons in flight`, services.log);
          services.metrics.comparison(route.path, 'not_made');
          return;
        }
        inFlight++;
        try {
          services.metrics.comparison(route.path, await compareInBackground({ ...about, answeredBy, answered, other }, settings.compareIgnore, services.log));
        } finally {
          inFlight--;
        }
      });

    if (settings.answer === 'facade') {
      await next();
      // The facade's side is computed again after the response (a pure function of the request and
      // the data) rather than copied from it: the caller's response object is never touched.
      if (compare)
        inBackground(
          'facade',
          () => facade(c),
          () => askLegacy(c, legacy, legacyUrl),
        );
      return;
    }

    c.get('logFlags').push('answeredByLegacy');
    const answer = askLegacy(c, legacy, legacyUrl);
    // A failed legacy answer is the caller's 502/504, and a comparison that could not be made.
    if (compare)
      inBackground(
        'legacy',
        () => answer,
        () => facade(c),
      );
    return legacyResponse(c, await answer, route);
  });
}

/** The legacy answer as the gateway's response; details get the same strong ETag and 304 as the facade's. */
async function legacyResponse(c: Context<AppEnv>, answer: Side & { lastModified: string | null }, route: V1Route): Promise<Response> {
  const headers = new Headers({ 'Content-Type': 'application/json' });
  if (answer.lastModified && answer.status === 200) headers.set('Last-Modified', answer.lastModified);
  const respond = () => new Response(JSON.stringify(answer.body), { status: answer.status, headers });
  if (!route.detail || answer.status !== 200) return respond();
  await etag()(c, async () => {
    c.res = respond();
  });
  return c.res;
}
