import { Hono } from 'hono';
import type { AppEnv, Services } from '../env';
import { NO_STORE } from '../policies/caching';
import { readyz } from './readiness';

/**
 * `/healthz` (the process answers) and `/readyz` (the record source can serve), for load
 * balancers: no credential, and like every other path, 405 with `Allow` to other methods (the
 * methods policy).
 */
export function healthRoutes(services: Pick<Services, 'source'>): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  router.get('/healthz', (c) => c.json({ status: 'ok' }, 200, { 'Cache-Control': NO_STORE }));
  router.get('/readyz', readyz(services));
  return router;
}
