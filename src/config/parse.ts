import { ConfigError } from './error';
import { parseMigration } from './migration';
import { readers } from './readers';
import type { Config, ConfigVars } from './types';
import { publicHosts, redisUrl, upstreamBase } from './values';

/**
 * The one typed configuration from environment variables (Node) or `[vars]`/bindings (Workers):
 * a bad value stops start-up with one `ConfigError` naming its variable.
 */
export function parseConfig(vars: ConfigVars): Config {
  const { text, int, instant, url, bool } = readers(vars);
  const demo = text('DEMO_CREDENTIALS');
  if (demo !== undefined && demo !== 'allow') throw new ConfigError('DEMO_CREDENTIALS', `must be allow, or unset (got ${JSON.stringify(demo)})`);
  const rateLimitMode = text('RATE_LIMIT_MODE') ?? 'local';
  if (rateLimitMode !== 'local' && rateLimitMode !== 'exact') {
    throw new ConfigError('RATE_LIMIT_MODE', `must be local or exact (got ${JSON.stringify(rateLimitMode)})`);
  }
  const serviceName = text('SERVICE_NAME') ?? 'botanical';
  if (!/^[A-Za-z0-9][A-Za-z0-9-]*$/.test(serviceName)) {
    throw new ConfigError('SERVICE_NAME', 'must be letters, digits and hyphens (it is a URN namespace)');
  }

  const v1DeprecatedAt = instant('V1_DEPRECATED_AT', '2026-01-01T00:00:00Z');
  const v1Sunset = instant('V1_SUNSET', '2027-07-31T00:00:00Z');
  if (v1Sunset < v1DeprecatedAt) {
    throw new ConfigError(
      'V1_SUNSET',
      `is before V1_DEPRECATED_AT (${new Date(v1Sunset).toISOString()} < ${new Date(v1DeprecatedAt).toISOString()}): v1 is deprecated first, then retired; set V1_SUNSET later or V1_DEPRECATED_AT earlier`,
    );
  }

  const port = int('PORT', 8787, 0, 65535);
  const metricsPort = text('METRICS_PORT') === undefined ? undefined : int('METRICS_PORT', 0, 0, 65535);
  // Metrics on the API port would publish the gateway's internals to every caller.
  if (metricsPort !== undefined && metricsPort !== 0 && metricsPort === port) {
    throw new ConfigError('METRICS_PORT', `must differ from PORT (${port}): metrics are never served on the API port`);
  }

  return {
    port,
    upstreamUrl: upstreamBase(url('UPSTREAM_URL')),
    upstreamAuthorization: text('UPSTREAM_AUTHORIZATION'),
    credentialsFile: text('CREDENTIALS_FILE'),
    tokenSigningSecret: text('TOKEN_SIGNING_SECRET'),
    serviceName,
    docsUrl: url('DOCS_URL', 'https://docs.botanical.example')!,
    trustProxy: bool('TRUST_PROXY'),
    trustTraceparent: bool('TRUST_TRACEPARENT'),
    otlpEndpoint: url('OTEL_EXPORTER_OTLP_ENDPOINT'),
    httpsRedirectUntil: instant('HTTPS_REDIRECT_UNTIL', '2026-08-31T00:00:00Z'),
    v1DeprecatedAt,
    v1Sunset,
    rateLimitPerMinute: int('RATE_LIMIT_PER_MINUTE', 120, 1),
    tokenRateLimitPerMinute: int('TOKEN_RATE_LIMIT_PER_MINUTE', 10, 1),
    rateLimitMode,
    upstream: {
      timeoutMs: int('UPSTREAM_TIMEOUT_MS', 5000, 1),
      retries: int('UPSTREAM_RETRIES', 1, 0),
      retryBudgetPercent: int('UPSTREAM_RETRY_BUDGET_PERCENT', 10, 0),
      breakerThreshold: int('UPSTREAM_BREAKER_THRESHOLD', 5, 1),
      breakerCooldownMs: int('UPSTREAM_BREAKER_COOLDOWN_MS', 10_000, 0),
      cacheTtlMs: int('UPSTREAM_CACHE_TTL_MS', 30_000, 0),
      staleMs: int('UPSTREAM_STALE_MS', 300_000, 0),
      staleAfterMs: int('UPSTREAM_STALE_AFTER_MS', 500, 0),
      cacheMaxEntries: int('UPSTREAM_CACHE_MAX_ENTRIES', 5000, 1),
      cacheMaxBytes: int('UPSTREAM_CACHE_MAX_BYTES', 50 * 1024 * 1024, 1024),
    },
    migration: parseMigration({ text, url }),
    host: text('HOST') ?? '127.0.0.1',
    demoCredentials: demo === 'allow',
    datesSet: (['HTTPS_REDIRECT_UNTIL', 'V1_SUNSET'] as const).filter((name) => text(name) !== undefined),
    redisUrl: redisUrl(text('REDIS_URL')),
    hostile: {
      publicHosts: publicHosts(text('PUBLIC_HOSTS')),
      authFailuresPerMinute: int('AUTH_FAILURES_PER_MINUTE', 20, 1),
      headersTimeoutMs: int('HEADERS_TIMEOUT_MS', 10_000, 1),
      requestTimeoutMs: int('REQUEST_TIMEOUT_MS', 30_000, 1),
      keepAliveTimeoutMs: int('KEEP_ALIVE_TIMEOUT_MS', 5000, 1),
      maxConnections: int('MAX_CONNECTIONS', 10_000, 1),
    },
    shutdown: {
      delayMs: int('SHUTDOWN_DELAY_MS', 0, 0),
      timeoutMs: int('SHUTDOWN_TIMEOUT_MS', 30_000, 0),
    },
    metrics: { port: metricsPort, host: text('METRICS_HOST') ?? '127.0.0.1' },
  };
}
