import { Hono } from 'hono';
import type { Config } from './config';
import type { AppEnv, Services } from './env';
import { ApiError } from './errors/api-error';
import { errorHandler, renderError } from './errors/render';
import { mountMigration } from './migration';
import { docsRoutes } from './openapi/docs-page';
import { descriptionRoutes } from './openapi/route';
import { policies } from './policies';
import { healthRoutes } from './routes/health';
import { oauthTokenRoute } from './routes/oauth-token';
import { coreRoutes } from './routes/resources';
import { buildVersions } from './versions';

/** The one factory both runtimes call: the whole gateway from a configuration and its services. */
export function createApp(config: Config, services: Services): Hono<AppEnv> {
  const versions = buildVersions(config);
  const app = new Hono<AppEnv>();
  const onError = errorHandler({ config, services });

  // The policies, in the order every request meets them (one list: src/policies/index.ts).
  for (const policy of policies(config, services, versions, onError)) app.use(policy);

  app.route('/', healthRoutes(services, config));
  app.route('/', oauthTokenRoute(config, services));
  app.route('/', descriptionRoutes(config, versions));
  app.route('/', docsRoutes(versions, services.docsAssets));

  const core = coreRoutes(services);
  // Who answers v1 (facade or legacy backend) and which answers are compared: after the policies.
  mountMigration(app, core, versions, config, services);
  for (const version of versions) {
    for (const base of version.bases) app.route(base, core);
  }

  app.notFound((c) => renderError(new ApiError('svc/notFound', `No resource at ${new URL(c.req.url).pathname}.`), c, { config, services }));
  app.onError(onError);
  return app;
}
