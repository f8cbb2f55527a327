import { Hono } from 'hono';
import type { Config } from '../config';
import { ApiError } from '../core/api-error';
import { JSON_TYPE, renderJson } from '../core/json-body';
import { MIGRATION_PLAN_PATH } from '../core/route-template';
import type { AppEnv, Services } from '../env';
import { planExample } from '../migration/plan/examples';
import { MOVED_AFTER_MS, migrationPlan } from '../migration/plan/plan';
import { emptyUsage } from '../migration/plan/usage';
import { respond } from '../policies/response-headers';
import { migrationGuideUrl } from '../versions/v1/deprecation';

/**
 * `GET /v2/migration-plan`: the caller's own plan, from what the gateway counted of its calls
 * (`services.usage`: the process's memory on Node, a Durable Object per client on Workers). The
 * subject is the credential's, so one project never reads another's; a caller nothing was
 * counted of gets the plan of no calls. The owner contact is the operator's record, in the
 * report's plans only.
 */
export function migrationPlanRoute(config: Pick<Config, 'v1Sunset' | 'docsUrl'>, services: Pick<Services, 'usage' | 'clock'>): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  const sunset = new Date(config.v1Sunset).toISOString();
  const guide = migrationGuideUrl(config.docsUrl);
  router.get(MIGRATION_PLAN_PATH, async (c) => {
    const caller = c.get('caller');
    if (!caller) throw new ApiError('auth/missingCredential', 'A credential is required.');
    const subject = `${caller.principal.kind}:${caller.principal.id}`;
    const recorded = await services.usage?.usage(subject);
    const movedSince = new Date(services.clock.now() - MOVED_AFTER_MS).toISOString();
    const plan = migrationPlan(recorded?.usage ?? emptyUsage(subject), { movedSince, sunset, example: planExample });
    const body = {
      data: plan,
      links: { self: `${c.get('base')}${MIGRATION_PLAN_PATH}`, guide },
      meta: { counted_since: recorded?.since ?? null, moved_since: movedSince },
    };
    return respond(c, renderJson(body), 200, JSON_TYPE);
  });
  return router;
}
