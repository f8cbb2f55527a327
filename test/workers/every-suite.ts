/**
 * Every runtime-neutral behavioural suite (test/suites), against the worker entry inside workerd
 * with its edge services: KV credentials, the Durable Object rate limiter, the request URL's
 * scheme for the transport policy. Run once per rate-limit mode (`suites.test.ts`,
 * `suites-exact.test.ts`); adding a suite to the edge runs is one line here. `walks: false` leaves
 * out v1's whole-dataset walks (see `v1Suite`).
 */
import { ManualClock } from '../../src/services/clock';
import { buildGateway } from '../../src/worker/gateway';
import { cachingSuite } from '../suites/caching.suite';
import type { SuiteClient } from '../suites/client';
import { conditionalSuite } from '../suites/conditional.suite';
import { corsSuite } from '../suites/cors.suite';
import { hostSuite } from '../suites/host.suite';
import { methodsSuite } from '../suites/methods.suite';
import { oauthSuite } from '../suites/oauth.suite';
import { openapiSuite } from '../suites/openapi.suite';
import { rateLimitSuite } from '../suites/rate-limit.suite';
import { searchTextSuite } from '../suites/search-text.suite';
import { smokeSuite } from '../suites/smoke.suite';
import { transportSuite } from '../suites/transport.suite';
import { DEFAULT_V1_HEADERS, v1Suite } from '../suites/v1.suite';
import { v2Suite } from '../suites/v2.suite';
import { v3Suite } from '../suites/v3.suite';
import { gatewayClient } from './client';

type Bindings = Parameters<typeof buildGateway>[0];

/**
 * The suites against `client`, and the transport and host suites against gateways built over
 * `bindings` (with their own variables and clock, either side of the HTTPS cut-off).
 */
export function everySuite(client: () => SuiteClient, bindings: Bindings, { walks = true } = {}): void {
  smokeSuite(client);
  v2Suite(client);
  v1Suite(client, DEFAULT_V1_HEADERS, { walks });
  v3Suite(client);
  oauthSuite(client);
  corsSuite(client);
  conditionalSuite(client);
  cachingSuite(client);
  rateLimitSuite(client);
  openapiSuite(client);
  searchTextSuite(client);
  methodsSuite(client, ['TRACE', 'PROPFIND', 'PURGE']);
  const gatewayAt = ({ now, env: vars }: { now: string; env: Record<string, string> }) =>
    gatewayClient(buildGateway({ ...bindings, ...vars }, new ManualClock(Date.parse(now))));
  transportSuite(gatewayAt);
  hostSuite(gatewayAt);
}
