import { Hono, type Context } from 'hono';
import type { Config } from './config';
import type { AppEnv, Services } from './env';
import { ApiError } from './core/api-error';
import { errorHandler, renderError } from './policies/render-error';
import { mountMigration } from './migration';
import { docsRoutes } from './openapi/docs-page';
import { descriptionRoutes } from './openapi/route';
import { type PolicyOptions, policies } from './policies';
import { behindPolicies } from './policies/policy';
import { healthRoutes } from './routes/health';
import { oauthTokenRoute } from './routes/oauth-token';
import { migrationPlanRoute } from './routes/migration-plan';
import { coreRoutes } from './routes/resources';
import { buildVersions } from './versions';
import { walk } from './versions/walker';

/** The one factory both runtimes call: the whole gateway from a configuration and its services. */
export function createApp(config: Config, services: Services, options: PolicyOptions = {}): Hono<AppEnv> {
  const versions = buildVersions(config);
  const routes = new Hono<AppEnv>();
  const onError = errorHandler({ config, services });

  routes.route('/', healthRoutes(services, config));
  routes.route('/', oauthTokenRoute(config, services));
  routes.route('/', descriptionRoutes(config, versions));
  routes.route('/', docsRoutes(versions, services.docsAssets));

  const core = coreRoutes(services);
  // Who answers v1 (facade or legacy backend) and which answers are compared: after the policies.
  mountMigration(routes, core, versions, config, services);
  const plan = migrationPlanRoute(config, services);
  for (const version of versions) {
    for (const base of version.bases) {
      routes.route(base, core);
      if (walk.hasMigrationPlan(version)) routes.route(base, plan);
    }
  }

  // Every request meets the policies first, in the order of their one list (src/policies/index.ts),
  // whichever route answers it, and when none does.
  const notFound = (c: Context<AppEnv>) => renderError(new ApiError('svc/notFound', `No resource at ${new URL(c.req.url).pathname}.`), c, { config, services });
  const app = behindPolicies(routes, policies(config, services, versions, onError, options), notFound);
  app.onError(onError);
  return app;
}
