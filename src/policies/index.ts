import type { MiddlewareHandler } from 'hono';
import type { Config } from '../config';
import type { AppEnv, Services } from '../env';
import type { Version } from '../versions/version';
import { accessLog } from './access-log';
import { authenticate } from './auth';
import { FailedAuthentications } from './auth-failures';
import { browsers } from './cors';
import { hostCheck } from './host';
import { headLength } from './head';
import { methods } from './methods';
import { rateLimit } from './rate-limit';
import { requestId } from './request-id';
import { transport } from './transport';
import { retirement, versionContext } from './version-context';

/**
 * The policies, in the order every request meets them, before any route. The order is the
 * design: the id, HEAD's length and the log line cover everything after them; the version
 * decides how errors render; the host is checked before transport, whose redirect is built from
 * it (a 301 to a host the gateway does not serve would be an open redirect), and before anything
 * else, so a misdirected request is refused whatever it asks for; a method no route serves is
 * refused on any path; transport answers plain HTTP before anything looks at a credential; CORS
 * answers preflights without one; a retired version answers 410 to everyone; authentication
 * refuses an address past its failure limit before it checks a secret; only an authenticated
 * caller is counted against a rate limit.
 */
export function policies(config: Config, services: Services, versions: readonly Version[]): MiddlewareHandler<AppEnv>[] {
  return [
    requestId(),
    headLength(),
    accessLog(services),
    versionContext(versions),
    hostCheck(config),
    methods(),
    transport(config, services),
    browsers(),
    retirement(services.clock),
    authenticate(services, config.serviceName, new FailedAuthentications(config, services)),
    rateLimit(config, services),
  ];
}
