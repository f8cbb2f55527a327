import type { Context } from 'hono';
import type { AppEnv, Services } from '../env';

/** What an in-process source (the bundled dataset) reports: it is ready once the app exists. */
const IN_PROCESS = { ready: true, report: { mode: 'bundled' } };

/**
 * `GET /readyz`, for load balancers: 200 when the record source can serve, else 503, with what it
 * found (upstream mode: reachability and breaker state). Like `/healthz`, it needs no credential.
 */
export const readyz = (services: Pick<Services, 'source'>) => async (c: Context<AppEnv>) => {
  const { ready, report } = (await services.source.ready?.({ requestId: c.get('requestId'), trace: c.get('trace') })) ?? IN_PROCESS;
  c.header('Cache-Control', 'no-store');
  return c.json({ status: ready ? 'ready' : 'unavailable', ...report }, ready ? 200 : 503);
};
