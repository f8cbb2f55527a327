/**
 * Every behavioural suite with every rate-limit decision the Durable Object's
 * (RATE_LIMIT_MODE=exact); `suites.test.ts` runs them in the default local mode. A file of its
 * own: storage is fresh for each test file, so the counts the local run sends the objects (the
 * token limit of 10 a minute among them) do not meet these. The failure throttle's suite runs in
 * both modes in `auth-failures.test.ts`. v1's whole-dataset walks run in the local file only:
 * thousands of requests whose answers are the dataset's (every one of them also passes the
 * limiter there), and here they would double the edge run's time.
 */
import { env } from 'cloudflare:workers';
import { buildGateway } from '../../src/worker/gateway';
import { gatewayClient } from './client';
import { everySuite } from './every-suite';

const bindings = { ...env, RATE_LIMIT_MODE: 'exact' };
let exact: ReturnType<typeof gatewayClient> | undefined;
everySuite(() => (exact ??= gatewayClient(buildGateway(bindings))), bindings, { walks: false });
