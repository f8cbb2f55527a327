/**
 * The behavioural suites whose outcome the rate limiter decides, with every decision the Durable
 * Object's (RATE_LIMIT_MODE=exact); test/workers/suites.test.ts runs them, and the rest, in the
 * default local mode. A file of its own: storage is fresh for each test file, so the counts the
 * local run sends the objects (the token limit of 10 a minute among them) do not meet these.
 * The failure throttle's suite runs in both modes in test/workers/auth-failures.test.ts. The v1
 * and v2 suites' data answers do not depend on who counts them, and would double the run: smoke
 * covers both versions.
 */
import { env } from 'cloudflare:workers';
import { buildGateway } from '../../src/worker/gateway';
import { oauthSuite } from '../suites/oauth.suite';
import { rateLimitSuite } from '../suites/rate-limit.suite';
import { smokeSuite } from '../suites/smoke.suite';
import { v3Suite } from '../suites/v3.suite';
import { gatewayClient } from './client';

let exact: ReturnType<typeof gatewayClient> | undefined;
const exactClient = () => (exact ??= gatewayClient(buildGateway({ ...env, RATE_LIMIT_MODE: 'exact' })));
smokeSuite(exactClient);
v3Suite(exactClient);
oauthSuite(exactClient);
rateLimitSuite(exactClient);
