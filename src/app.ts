import { Hono } from 'hono';
import type { Config } from './config';
import { readyz } from './core/readiness';
import { coreRoutes } from './core/routes';
import type { AppEnv, Services } from './env';
import { ApiError } from './errors/api-error';
import { renderError } from './errors/render';
import { accessLog } from './policies/access-log';
import { authenticate } from './policies/auth';
import { requestId } from './policies/request-id';
import { retirement, versionContext } from './policies/version-context';
import { buildVersions } from './versions';

/** The one factory both runtimes call: the whole gateway from a configuration and its services. */
export function createApp(config: Config, services: Services): Hono<AppEnv> {
  const versions = buildVersions(config);
  const app = new Hono<AppEnv>();

  // The policies, in the order every request meets them.
  app.use(requestId());
  app.use(accessLog(services));
  app.use(versionContext(versions));
  app.use(retirement(services.clock));
  app.use(authenticate(services, config.serviceName));

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', readyz(services));

  const core = coreRoutes(services);
  for (const version of versions) {
    for (const base of version.bases) app.route(base, core);
  }

  app.notFound((c) => renderError(new ApiError('svc/notFound', `No resource at ${new URL(c.req.url).pathname}.`), c, { config, services }));
  app.onError((err, c) => renderError(err, c, { config, services }));
  return app;
}
