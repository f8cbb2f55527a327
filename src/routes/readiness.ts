import type { Context } from 'hono';
import type { Config } from '../config';
import type { AppEnv, Services } from '../env';
import { NO_STORE } from '../core/cache-control';
import type { Readiness } from '../services/record-source';

/** What an in-process source (the bundled dataset) reports: it is ready once the app exists. */
const IN_PROCESS: Readiness = { ready: true, report: { mode: 'bundled' } };

type ReadinessServices = Pick<Services, 'source' | 'legacy' | 'lifecycle'>;

/**
 * `GET /readyz`, for load balancers: 200 when every backend that answers callers can serve, else
 * 503, with what each check found under the backend's name (`upstream`, `legacy`). A stopping
 * process says so at once, without asking its backends: the balancer should send elsewhere while
 * the requests in flight finish (docs/reference/operations.md). Like `/healthz`, it needs no credential.
 */
export const readyz = (services: ReadinessServices, config: Pick<Config, 'migration'>) => async (c: Context<AppEnv>) => {
  c.header('Cache-Control', NO_STORE);
  if (services.lifecycle?.stopping) return c.json({ status: 'stopping' }, 503);
  const ctx = { requestId: c.get('requestId'), trace: c.get('trace') };
  // The legacy backend counts only while it answers v1; comparisons alone never fail a caller.
  const legacy = config.migration.answer === 'legacy' ? services.legacy?.ready?.(ctx) : undefined;
  const checks = await Promise.all([services.source.ready?.(ctx) ?? IN_PROCESS, ...(legacy ? [legacy] : [])]);
  const ready = checks.every((check) => check.ready);
  return c.json({ status: ready ? 'ready' : 'unavailable', ...Object.assign({}, ...checks.map((check) => check.report)) }, ready ? 200 : 503);
};
