import type { Interval } from '../core/intervals';

/**
 * The one typed configuration, parsed once at an entry from environment variables (Node) or
 * `[vars]`/bindings (Workers) with the same names. docs/reference/operations.md.
 */
export interface Config {
  port: number;
  upstreamUrl: string | undefined;
  upstreamAuthorization: string | undefined;
  credentialsFile: string | undefined;
  /** Undefined means: the entry generates a random per-process secret and warns. */
  tokenSigningSecret: string | undefined;
  serviceName: string;
  docsUrl: string;
  trustProxy: boolean;
  /** Continue an incoming W3C `traceparent` (docs/reference/observability.md); otherwise every request starts a trace. */
  trustTraceparent: boolean;
  /** Node: `OTEL_EXPORTER_OTLP_ENDPOINT`, where spans are exported over OTLP/HTTP; unset, nothing is exported or loaded. */
  otlpEndpoint: string | undefined;
  httpsRedirectUntil: number;
  v1DeprecatedAt: number;
  v1Sunset: number;
  rateLimitPerMinute: number;
  tokenRateLimitPerMinute: number;
  /**
   * Workers: `local` decides rate limits and the failure throttle in the isolate, reconciling with
   * the Durable Object after the response; `exact` asks the object first (docs/reference/operations.md).
   */
  rateLimitMode: 'local' | 'exact';
  upstream: UpstreamTuning;
  migration: MigrationConfig;
  /** Node listen address (docs/reference/operations.md); loopback by default (docs/reference/operations.md). */
  host: string;
  /**
   * `DEMO_CREDENTIALS=allow`: the bundled demo credentials and a random signing secret may serve
   * where the Node gateway listens beyond loopback, or a worker has no credential store (docs/reference/operations.md). Unset, they are refused there.
   */
  demoCredentials: boolean;
  /** The date settings the operator gave (not defaulted): a passed default does not warn. */
  datesSet: ReadonlyArray<'HTTPS_REDIRECT_UNTIL' | 'V1_SUNSET'>;
  /** Shares rate limits and failure throttles between Node instances; unset: per process. */
  redisUrl: string | undefined;
  hostile: HostileInputConfig;
  shutdown: ShutdownConfig;
  /** Node: the Prometheus listener (docs/reference/observability.md); no port, no listener. */
  metrics: { port: number | undefined; host: string };
}

/** Graceful stop on Node (docs/reference/operations.md). */
export interface ShutdownConfig {
  /** How long the listener keeps accepting after the signal, while `/readyz` already says 503. */
  delayMs: number;
  /** How long requests in flight may take to finish once the listener has closed. */
  timeoutMs: number;
}

/** Defences against hostile input and abuse (docs/reference/requests.md). */
export interface HostileInputConfig {
  /** `PUBLIC_HOSTS`: lower-case `host` or `host:port` entries; empty: any syntactically valid host. */
  publicHosts: string[];
  authFailuresPerMinute: number;
  /** Node only. */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
}

/** Migration controls (docs/reference/migration.md); the legacy backend shares `upstream`'s resilience settings. */
export interface MigrationConfig {
  /** `LEGACY_V1_URL` without a trailing slash, version segment included. */
  legacyUrl: string | undefined;
  legacyAuthorization: string | undefined;
  answer: 'facade' | 'legacy';
  /** 0-100, up to two decimals. */
  comparePercent: number;
  compareIgnore: string[];
  brownouts: Interval[];
}

/** Resilience settings of upstream mode (docs/reference/operations.md); documented in the README. */
export interface UpstreamTuning {
  timeoutMs: number;
  retries: number;
  /** Retries may add at most this share (%) of extra upstream requests, after a burst of 10. */
  retryBudgetPercent: number;
  breakerThreshold: number;
  breakerCooldownMs: number;
  cacheTtlMs: number;
  staleMs: number;
  /** During an upstream hang, a stale copy answers after this long instead of the full timeout. */
  staleAfterMs: number;
  cacheMaxEntries: number;
  cacheMaxBytes: number;
}

export type ConfigVars = Record<string, string | undefined>;
