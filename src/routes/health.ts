import { Hono } from 'hono';
import type { Config } from '../config';
import type { AppEnv, Services } from '../env';
import { HEALTH_PATHS } from '../policies/health-paths';
import { methodNotAllowed, READ_ONLY } from './method-not-allowed';
import { readyz } from './readiness';

/**
 * `/healthz` (the process answers) and `/readyz` (its backends can serve, and it is not stopping), for load
 * balancers: no credential, and like every other path, 405 with `Allow` to other methods.
 */
export function healthRoutes(services: Pick<Services, 'source' | 'legacy' | 'lifecycle'>, config: Pick<Config, 'migration'>): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  router.get('/healthz', (c) => c.json({ status: 'ok' }));
  router.get('/readyz', readyz(services, config));
  for (const path of HEALTH_PATHS) router.all(path, methodNotAllowed(READ_ONLY));
  return router;
}
