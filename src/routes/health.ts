import { Hono } from 'hono';
import type { Config } from '../config';
import type { AppEnv, Services } from '../env';
import { NO_STORE } from '../core/cache-control';
import { readyz } from './readiness';

/**
 * `/healthz` (the process answers) and `/readyz` (its backends can serve, and it is not stopping), for load
 * balancers: no credential, and like every other path, 405 with `Allow` to other methods.
 */
export function healthRoutes(services: Pick<Services, 'source' | 'legacy' | 'lifecycle'>, config: Pick<Config, 'migration'>): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  router.get('/healthz', (c) => c.json({ status: 'ok' }, 200, { 'Cache-Control': NO_STORE }));
  router.get('/readyz', readyz(services, config));
  return router;
}
