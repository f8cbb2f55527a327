/**
 * The Workers entry (production edge). With `src/worker/`, the only code that touches Workers
 * APIs; it calls the same `createApp` as the Node entry, through `buildGateway`.
 */
import { buildGateway, type Gateway } from './worker/gateway';

export { RateLimiterObject } from './worker/rate-limiter-object';

/** Built on an isolate's first request and reused: the bindings do not change within an isolate. */
let gateway: Gateway | undefined;

export default {
  fetch(request, env, ctx) {
    gateway ??= buildGateway(env);
    return gateway.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Env>;
