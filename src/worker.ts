/**
 * The Workers entry (production edge). With `src/worker/`, the only code that touches Workers
 * APIs; it calls the same `createApp` as the Node entry, through `buildGateway`.
 */
import { env } from 'cloudflare:workers';
import { buildGateway, buildRoutes, type Gateway } from './worker/gateway';

export { RateLimiterObject } from './worker/rate-limiter-object';
export { UsageObject } from './worker/usage-object';

/**
 * The gateway, built once per isolate from its bindings, which do not change within it. It is
 * built when the isolate starts (global scope), with its route matchers, so no request waits for
 * either: on Cloudflare an isolate is started while the TLS handshake of its first connection is
 * still going on. Building it does no I/O and draws no random values (neither is allowed in
 * global scope); should it fail there all the same, the first request builds it, and meets the
 * failure as a request would.
 */
let gateway: Gateway | undefined = startingGateway();

function startingGateway(): Gateway | undefined {
  try {
    const built = buildGateway(env);
    buildRoutes(built);
    return built;
  } catch {
    return undefined;
  }
}

export default {
  fetch(request, env, ctx) {
    gateway ??= buildGateway(env);
    return gateway.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Env>;
