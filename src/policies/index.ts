import type { MiddlewareHandler } from 'hono';
import type { Config } from '../config';
import type { AppEnv, Services } from '../env';
import type { Version } from '../versions/version';
import { accessLog } from './access-log';
import { authenticate } from './auth';
import { browsers } from './cors';
import { headLength } from './head';
import { methods } from './methods';
import { rateLimit } from './rate-limit';
import { requestId } from './request-id';
import { transport } from './transport';
import { retirement, versionContext } from './version-context';

/**
 * The policies, in the order every request meets them, before any route. The order is the
 * design: the id, HEAD's length and the log line cover everything after them; the version
 * decides how errors render; a method no route serves is refused on any path; transport answers
 * plain HTTP before anything looks at a credential; CORS answers preflights without one; a
 * retired version answers 410 to everyone; only an authenticated caller is counted against a
 * rate limit.
 */
export function policies(config: Config, services: Services, versions: readonly Version[]): MiddlewareHandler<AppEnv>[] {
  return [
    requestId(),
    headLength(),
    accessLog(services),
    versionContext(versions),
    methods(),
    transport(config, services),
    browsers(),
    retirement(services.clock),
    authenticate(services, config.serviceName),
    rateLimit(config, services),
  ];
}
