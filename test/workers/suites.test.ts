/**
 * The runtime-neutral behavioural suites (test/suites), run against the worker entry inside
 * workerd with its edge services: KV credentials, the Durable Object rate limiter, the request
 * URL's scheme for the transport policy. Adding a suite to the edge run is one line here.
 */
import { env } from 'cloudflare:workers';
import { ManualClock } from '../../src/services/clock';
import { buildGateway } from '../../src/worker/gateway';
import { cachingSuite } from '../suites/caching.suite';
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
import { gatewayClient, workerClient } from './client';

// The worker entry decides rate limits in the isolate (RATE_LIMIT_MODE=local, the default).
smokeSuite(workerClient);
v2Suite(workerClient);
v1Suite(workerClient, DEFAULT_V1_HEADERS);
v3Suite(workerClient);
oauthSuite(workerClient);
corsSuite(workerClient);
conditionalSuite(workerClient);
cachingSuite(workerClient);
rateLimitSuite(workerClient);
openapiSuite(workerClient);
searchTextSuite(workerClient);
methodsSuite(workerClient, ['TRACE', 'PROPFIND', 'PURGE']);
// The transport and host suites stand the gateway on either side of the HTTPS cut-off.
const gatewayAt = ({ now, env: vars }: { now: string; env: Record<string, string> }) =>
  gatewayClient(buildGateway({ ...env, ...vars }, new ManualClock(Date.parse(now))));
transportSuite(gatewayAt);
hostSuite(gatewayAt);
