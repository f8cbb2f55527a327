/**
 * Every behavioural suite against the worker entry as workerd serves it, rate limits decided in
 * the isolate (RATE_LIMIT_MODE=local, the default); `suites-exact.test.ts` runs them again with
 * every decision the Durable Object's.
 */
import { env } from 'cloudflare:workers';
import { workerClient } from './client';
import { everySuite } from './every-suite';

everySuite(workerClient, env);
