import { createApp } from '../app';
import { ConfigError, describeConfig, parseConfig, type ConfigVars } from '../config';
import type { LogLine } from '../env';
import { BundledSource } from '../services/bundled/bundled-source';
import { CacheApiResponseCache } from '../services/cache/cache-api-response-cache';
import type { Clock } from '../services/clock';
import { kvOrDemoCredentials } from '../services/credentials/kv-credential-store';
import { assembleServices, randomSecret } from '../services/index';
import { DurableObjectRateLimiter } from '../services/rate-limit/durable-object-rate-limiter';
import { loadDataset } from './dataset';
import { misconfiguredApp } from './misconfigured';

/** What the entry's `fetch` hands each request to: the gateway, or the misconfiguration answer. */
export interface Gateway {
  fetch(request: Request, env: Env, ctx: ExecutionContext): Response | Promise<Response>;
}

const log = (line: LogLine) => console.log(JSON.stringify(line));
const warn = (message: string) => log({ level: 'warn', message });

/**
 * Builds the gateway from the bindings: the same `parseConfig` and `createApp` as Node, with the
 * edge services. Called once per isolate, on its first request, so the dataset is parsed there
 * and not inside the start-up time limit.
 */
export function buildGateway(env: Env): Gateway {
  let config;
  try {
    config = parseConfig(configVars(env));
  } catch (err) {
    if (err instanceof ConfigError) return misconfiguredApp(err, log);
    throw err;
  }
  if (!config.tokenSigningSecret) {
    warn('TOKEN_SIGNING_SECRET is not set: tokens are signed with a random per-isolate secret and verify only in the isolate that issued them.');
  }
  const source = new BundledSource(loadDataset());
  const services = assembleServices(config, {
    source,
    credentials: kvOrDemoCredentials(env.CREDENTIALS, warn),
    fallbackSigningSecret: randomSecret(),
    log,
  });
  log({ level: 'info', message: 'gateway ready', mode: 'bundled', records: source.counts(), config: describeConfig(config) });
  return createApp(config, services);
}

/** `[vars]` and secrets as the string variables `parseConfig` reads; other bindings are skipped. */
export function configVars(env: object): ConfigVars {
  const vars: ConfigVars = {};
  for (const [name, value] of Object.entries(env)) {
    // `[vars]` may hold TOML numbers and booleans; they mean the same as their text.
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') vars[name] = String(value);
  }
  return vars;
}

/** The rate limiter over the `RATE_LIMITER` Durable Object namespace: one object per bucket. */
export function edgeRateLimiter(env: Env): DurableObjectRateLimiter {
  return new DurableObjectRateLimiter((bucket) => env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(bucket)));
}

/** The upstream response cache over this data centre's Cache API. */
export function edgeResponseCache(clock: Clock): CacheApiResponseCache {
  return new CacheApiResponseCache(caches.default, clock);
}
