import type { ErrorHandler } from 'hono';
import type { Config } from '../config';
import type { AppEnv, Services } from '../env';
import { errorHandler } from './render-error';
import type { Version } from '../versions/version';
import { accessLog } from './access-log';
import { authenticate } from './auth';
import { FailedAuthentications } from './auth-failures';
import { caching } from './caching';
import { browsersPolicy } from './cors';
import { hostCheck } from './host';
import { headLength } from './head';
import { servedMethods, unknownMethods } from './methods';
import { policyChain, type PolicyChain } from './policy';
import { rateLimit } from './rate-limit';
import { requestIdPolicy } from './request-id';
import { traceContext } from './trace-context';
import { transport } from './transport';
import { identifiedInBrownout, retirement, versionPolicy } from './version-context';

/** Switches for benchmarks only; a gateway always runs with the defaults. */
export interface PolicyOptions {
  /**
   * False only in `bench:http`'s observability case (`BENCH_WITHOUT_TRACE_CONTEXT=1`, read by the
   * Node entry), to measure what trace context costs: no trace id drawn per request, no `time`,
   * `trace_id` or `client_request_id` in the access line. Default true.
   */
  traceContext?: boolean;
}

/**
 * The policies, in the order every request meets them, before any route. The order is the
 * design: the id and trace, HEAD's length and the log line cover everything after them; the version
 * decides how errors render; the host is checked before transport, whose redirect is built from
 * it (a 301 to a host the gateway does not serve would be an open redirect), and before anything
 * else, so a misdirected request is refused whatever it asks for; a method no route serves is
 * refused on any path; transport answers plain HTTP before anything looks at a credential; CORS
 * answers preflights without one; a retired version answers 410 to everyone (inside a brownout
 * too, once authentication has named the caller for the log, whatever it found); a method the path
 * does not serve is refused without a credential; authentication refuses an address past its
 * failure limit before it checks a secret; only an authenticated caller's answer is marked private
 * to it, and only such a caller is counted against a rate limit. They run as one chain
 * (`policyChain`) around whichever route answers (`behindPolicies`); what one refuses is rendered
 * by `onError`, the app's error handler.
 */
export function policies(
  config: Config,
  services: Services,
  versions: readonly Version[],
  onError: ErrorHandler<AppEnv> = errorHandler({ config, services }),
  { traceContext: traced = true }: PolicyOptions = {},
): PolicyChain {
  return policyChain(
    [
      requestIdPolicy(),
      traceContext(config, traced, services.header),
      headLength(),
      accessLog(config, services, traced),
      versionPolicy(versions),
      hostCheck(config),
      unknownMethods(),
      transport(config, services),
      browsersPolicy(services.header),
      retirement(services.clock),
      servedMethods(),
      identifiedInBrownout(authenticate(services, config.serviceName, new FailedAuthentications(config, services))),
      caching(),
      rateLimit(config, services),
    ],
    onError,
  );
}
