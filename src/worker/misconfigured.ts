import { Hono } from 'hono';
import { parseConfig, type ConfigError } from '../config';
import type { AppEnv } from '../env';
import { ApiError } from '../core/api-error';
import { renderError } from '../policies/render-error';
import { asMiddleware } from '../policies/policy';
import { requestId } from '../policies/request-id';
import { traceContext } from '../policies/trace-context';
import type { LogLine } from '../services/log';

/**
 * What a worker with invalid `[vars]` answers. An isolate cannot exit the way the Node entry does
 * (that would only become a crash loop), so every request gets a 500 problem that says nothing
 * about the configuration, and a log line that names the variable (never a secret: secrets are
 * not validated, so they never appear in a ConfigError).
 */
export function misconfiguredApp(error: ConfigError, log: (line: LogLine) => void): Hono<AppEnv> {
  // The defaults give the problem's `type` and `instance`; the broken values are not trusted.
  const config = parseConfig({});
  const app = new Hono<AppEnv>();
  app.use(requestId(), asMiddleware(traceContext(config)));
  app.all('*', (c) => {
    log({ level: 'error', request_id: c.get('requestId'), trace_id: c.get('trace').traceId, message: error.message });
    throw new ApiError('svc/internalError', 'The gateway is misconfigured; quote the request id to support.');
  });
  app.onError((err, c) => renderError(err, c, { config, services: { log } }));
  return app;
}
