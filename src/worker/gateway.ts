import { waitUntil } from 'cloudflare:workers';
import { Hono } from 'hono';
import { createApp } from '../app';
import { ConfigError, describeConfig, parseConfig, type Config, type ConfigVars } from '../config';
import { CacheApiResponseCache } from '../services/cache/cache-api-response-cache';
import { systemClock, type Clock } from '../services/clock';
import { CachedCredentialStore } from '../services/credentials/cached-credential-store';
import type { CredentialStore } from '../services/credentials/credential-store';
import { KvCredentialStore, kvOrDemoCredentials } from '../services/credentials/kv-credential-store';
import { assembleServices, randomSecret } from '../assemble-services';
import { DurableObjectRateLimiter } from '../services/rate-limit/durable-object-rate-limiter';
import { LocalFirstRateLimiter } from '../services/rate-limit/local-first-rate-limiter';
import type { RateLimiter } from '../services/rate-limit/rate-limiter';
import { createUpstreamSource } from '../services/upstream/index';
import { analyticsEngineRecorder } from './analytics';
import { workerConnection } from './connection';
import { bundledSource } from './dataset';
import { workerDocsAssets } from './docs-assets';
import { misconfiguredApp } from './misconfigured';
import { consoleLog } from '../services/log';
import { DurableObjectUsageStore } from '../migration/plan/durable-object-usage-store';
import { MemoryUsageStore, type UsageStore } from '../migration/plan/usage-store';

/** What the entry's `fetch` hands each request to: the gateway, or the misconfiguration answer. */
export interface Gateway {
  fetch(request: Request, env: Env, ctx: ExecutionContext): Response | Promise<Response>;
}

const warn = (message: string) => consoleLog({ level: 'warn', message });

/**
 * Builds the gateway from the bindings: the same `parseConfig` and `createApp` as Node, with the
 * edge services. The entry calls it once per isolate, when the isolate starts (global scope: no
 * I/O, no random values). `clock` is for tests that stand the gateway at a chosen instant.
 */
export function buildGateway(env: Env, clock: Clock = systemClock): Gateway {
  let config: Config;
  try {
    config = parseConfig(configVars(env));
    return createApp(config, edgeServices(env, config, clock));
  } catch (err) {
    if (err instanceof ConfigError) return misconfiguredApp(err, consoleLog);
    throw err;
  }
}

/**
 * Has the router build its matchers now. Hono builds them on the first match, which under
 * `wrangler dev` cost a fresh isolate's first request 5-14 ms; the entry calls this in global
 * scope, where no request waits for it. Matching adds no route and does no I/O.
 */
export function buildRoutes(gateway: Gateway): void {
  if (gateway instanceof Hono) gateway.router.match('GET', '/v2/species');
}

function edgeServices(env: Env, config: Config, clock: Clock) {
  if (!config.tokenSigningSecret) {
    // A per-isolate secret signs tokens that other isolates refuse: a demonstration, never a deployment.
    if (!config.demoCredentials) {
      throw new ConfigError(
        'TOKEN_SIGNING_SECRET',
        'is not set: set it with `wrangler secret put TOKEN_SIGNING_SECRET` (32 random bytes), or set DEMO_CREDENTIALS=allow',
      );
    }
    warn('TOKEN_SIGNING_SECRET is not set: tokens are signed with a random per-isolate secret and verify only in the isolate that issued them.');
  }
  // Upstream mode (docs/reference/operations.md) never reads the bundled dataset.
  if (!config.upstreamUrl && !env.ASSETS)
    throw new ConfigError('ASSETS', 'is not bound: the compiled dataset (wrangler.toml [assets]) is needed unless UPSTREAM_URL is set.');
  const bundled = config.upstreamUrl ? undefined : bundledSource(env.ASSETS!);
  const source = bundled ?? createUpstreamSource(config, { clock, log: consoleLog, cache: edgeResponseCache(clock) });
  const services = assembleServices(config, {
    source,
    credentials: edgeCredentials(env, config, clock),
    rateLimiter: edgeRateLimiter(env, config, clock),
    connection: workerConnection,
    clock,
    log: consoleLog,
    // The isolate is kept alive for the comparison after the response has gone (docs/reference/migration.md).
    afterResponse: (c, task) => c.executionCtx.waitUntil(task()),
    fallbackSigningSecret: randomSecret,
    docsAssets: workerDocsAssets,
    recordRequest: env.METRICS && analyticsEngineRecorder(env.METRICS),
    usage: edgeUsage(env, clock),
  });
  consoleLog({
    level: 'info',
    message: 'gateway ready',
    mode: bundled ? 'bundled' : 'upstream',
    records: bundled?.counts(),
    config: describeConfig(config, 'workers'),
  });
  return services;
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

/**
 * The credentials in the `CREDENTIALS` KV namespace, each principal found kept by the isolate for
 * up to `PRINCIPAL_SECONDS` (`CachedCredentialStore`); without the binding, the demo store, with
 * a warning, where `DEMO_CREDENTIALS=allow`, else a `ConfigError`.
 */
export function edgeCredentials(env: Env, config: Pick<Config, 'demoCredentials'>, clock: Clock): CredentialStore {
  const store = kvOrDemoCredentials(env.CREDENTIALS, config.demoCredentials, warn);
  return store instanceof KvCredentialStore ? new CachedCredentialStore(store, clock) : store;
}

/**
 * The rate limiter over the `RATE_LIMITER` Durable Object namespace, one object per bucket. In
 * `local` mode (the default) the isolate decides and tells the object after the response
 * (`waitUntil`), so no request within its limits waits on the object's distant location; in
 * `exact` mode every decision is the object's (docs/reference/operations.md). Without the binding: the
 * in-memory limiter (counts per isolate only), with a warning.
 */
export function edgeRateLimiter(env: Env, config: Pick<Config, 'rateLimitMode'>, clock: Clock): RateLimiter | undefined {
  const namespace = env.RATE_LIMITER;
  if (!namespace) {
    warn('The RATE_LIMITER Durable Object namespace is not bound: rate limits count per isolate only.');
    return undefined;
  }
  const authority = new DurableObjectRateLimiter((bucket) => namespace.get(namespace.idFromName(bucket)));
  if (config.rateLimitMode === 'exact') return authority;
  return new LocalFirstRateLimiter(authority, clock, {
    defer: waitUntil,
    failed: (bucket, err) => consoleLog({ level: 'error', message: `rate limit not reconciled with its Durable Object: ${(err as Error).message}`, bucket }),
  });
}

/**
 * What each client did, for its self-service migration plan: one `USAGE` Durable Object per
 * client, told after the response (`waitUntil`), so no request waits on it. Without the binding:
 * the isolate's memory (counts per isolate only), with a warning.
 */
export function edgeUsage(env: Env, clock: Clock): UsageStore {
  const now = () => new Date(clock.now()).toISOString();
  const namespace = env.USAGE;
  if (!namespace) {
    warn('The USAGE Durable Object namespace is not bound: migration plans count per isolate only.');
    return new MemoryUsageStore(now());
  }
  return new DurableObjectUsageStore((subject) => namespace.get(namespace.idFromName(subject)), {
    defer: waitUntil,
    now,
    failed: (subject, err) => consoleLog({ level: 'error', message: `usage not reported to its Durable Object: ${(err as Error).message}`, subject }),
  });
}

/** The upstream response cache over this data centre's Cache API. */
export function edgeResponseCache(clock: Clock): CacheApiResponseCache {
  return new CacheApiResponseCache(caches.default, clock);
}
