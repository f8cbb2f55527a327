import { isHostEntry } from './core/host-name';
import { parseInstant, parseIntervals, RFC3339, type Interval } from './core/intervals';

/**
 * The one typed configuration, parsed once at an entry from environment variables (Node) or
 * `[vars]`/bindings (Workers) with the same names. CONTRACT section 1.
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
  /** Continue an incoming W3C `traceparent` (CONTRACT section 20); otherwise every request starts a trace. */
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
   * the Durable Object after the response; `exact` asks the object first (CONTRACT section 23).
   */
  rateLimitMode: 'local' | 'exact';
  upstream: UpstreamTuning;
  migration: MigrationConfig;
  /** Node listen address (CONTRACT section 17); loopback by default (section 22). */
  host: string;
  /**
   * `DEMO_CREDENTIALS=allow`: the bundled demo credentials and a random signing secret may serve
   * where the Node gateway listens beyond loopback, or a worker has no credential store (CONTRACT
   * section 22). Unset, they are refused there.
   */
  demoCredentials: boolean;
  /** The date settings the operator gave (not defaulted): a passed default does not warn. */
  datesSet: ReadonlyArray<'HTTPS_REDIRECT_UNTIL' | 'V1_SUNSET'>;
  /** Shares rate limits and failure throttles between Node instances; unset: per process. */
  redisUrl: string | undefined;
  hostile: HostileInputConfig;
  shutdown: ShutdownConfig;
  /** Node: the Prometheus listener (CONTRACT section 20); no port, no listener. */
  metrics: { port: number | undefined; host: string };
}

/** Graceful stop on Node (CONTRACT section 21). */
export interface ShutdownConfig {
  /** How long the listener keeps accepting after the signal, while `/readyz` already says 503. */
  delayMs: number;
  /** How long requests in flight may take to finish once the listener has closed. */
  timeoutMs: number;
}

/** Defences against hostile input and abuse (CONTRACT section 18). */
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

/** Migration controls (CONTRACT section 16); the legacy backend shares `upstream`'s resilience settings. */
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

/** Resilience settings of upstream mode (section 12); documented in the README. */
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

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

/** `PUBLIC_HOSTS`: comma-separated, lower-cased; an entry no request could name stops start-up. */
function publicHosts(raw: string | undefined): string[] {
  const hosts = (raw ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h.length > 0);
  const bad = hosts.find((h) => !isHostEntry(h));
  if (bad !== undefined) {
    throw new ConfigError(
      'PUBLIC_HOSTS',
      `holds ${JSON.stringify(bad)}, not a host[:port]: a DNS name (punycode for other scripts), an IPv4 address or a bracketed IPv6 literal, then an optional port from 1 to 65535`,
    );
  }
  return hosts;
}

export function parseConfig(vars: ConfigVars): Config {
  const text = (name: string): string | undefined => {
    const value = vars[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const int = (name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number => {
    const raw = text(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`;
      throw new ConfigError(name, `must be a whole number ${range} (got ${JSON.stringify(raw)})`);
    }
    return Number(raw);
  };
  const instant = (name: string, fallback: string): number => {
    const raw = text(name) ?? fallback;
    const ms = parseInstant(raw);
    if (ms !== undefined) return ms;
    if (RFC3339.test(raw))
      throw new ConfigError(name, `is not a real date and time: check the day of the month, the hour and the offset (got ${JSON.stringify(raw)})`);
    const hint = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(raw) ? " (this one has no offset, so it would depend on the server's time zone)" : '';
    throw new ConfigError(name, `must be an RFC 3339 date-time with an offset, Z or +hh:mm, such as 2027-07-31T00:00:00Z${hint} (got ${JSON.stringify(raw)})`);
  };
  const url = (name: string, fallback?: string): string | undefined => {
    const raw = text(name) ?? fallback;
    if (raw === undefined) return undefined;
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      throw new ConfigError(name, `must be an http(s) URL (got ${JSON.stringify(raw)})`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new ConfigError(name, `must be an http(s) URL (got ${JSON.stringify(raw)})`);
    }
    return raw.replace(/\/+$/, '');
  };
  const bool = (name: string): boolean => {
    const raw = text(name)?.toLowerCase();
    if (raw === undefined || raw === 'false' || raw === '0' || raw === 'no') return false;
    if (raw === 'true' || raw === '1' || raw === 'yes') return true;
    throw new ConfigError(name, `must be true or false (got ${JSON.stringify(raw)})`);
  };
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

  const migration = (): MigrationConfig => {
    const legacyUrl = url('LEGACY_V1_URL');
    if (legacyUrl) {
      const parsed = new URL(legacyUrl);
      // Printed with the configuration, and fetch refuses them: the secret goes in LEGACY_V1_AUTHORIZATION.
      if (parsed.username || parsed.password) throw new ConfigError('LEGACY_V1_URL', 'must not carry credentials; set LEGACY_V1_AUTHORIZATION instead');
      if (parsed.search || parsed.hash) throw new ConfigError('LEGACY_V1_URL', 'must be a base URL without query or fragment');
    }
    const answer = text('V1_ANSWER') ?? 'facade';
    if (answer !== 'facade' && answer !== 'legacy') throw new ConfigError('V1_ANSWER', `must be facade or legacy (got ${JSON.stringify(answer)})`);
    const rawPercent = text('V1_COMPARE_PERCENT') ?? '0';
    if (!/^\d{1,3}(\.\d{1,2})?$/.test(rawPercent) || Number(rawPercent) > 100) {
      throw new ConfigError('V1_COMPARE_PERCENT', `must be a number from 0 to 100 (got ${JSON.stringify(rawPercent)})`);
    }
    const comparePercent = Number(rawPercent);
    if (!legacyUrl && (answer === 'legacy' || comparePercent > 0)) {
      const asking = [answer === 'legacy' ? 'V1_ANSWER=legacy' : '', comparePercent > 0 ? `V1_COMPARE_PERCENT=${rawPercent}` : '']
        .filter(Boolean)
        .join(' and ');
      throw new ConfigError('LEGACY_V1_URL', `must be set: ${asking} need${asking.includes(' and ') ? '' : 's'} the legacy v1 backend`);
    }
    const compareIgnore = (text('V1_COMPARE_IGNORE') ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p.length > 0);
    const badPath = compareIgnore.find((p) => !/^[^\s.[\]]+(\[\]|\.[^\s.[\]]+)*$/.test(p));
    if (badPath !== undefined) throw new ConfigError('V1_COMPARE_IGNORE', `holds a JSON path that is not of the form a.b[].c (got ${JSON.stringify(badPath)})`);
    let brownouts: Interval[];
    try {
      brownouts = parseIntervals(text('V1_BROWNOUTS') ?? '');
    } catch (err) {
      throw new ConfigError('V1_BROWNOUTS', (err as Error).message);
    }
    return { legacyUrl, legacyAuthorization: text('LEGACY_V1_AUTHORIZATION'), answer, comparePercent, compareIgnore, brownouts };
  };

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
    migration: migration(),
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

/**
 * `UPSTREAM_URL` is the backend's base: the gateway appends `/v2/...` itself, so a base that
 * already ends in a version segment would ask for `/v2/v2/...` (502 on lists, 404 on details).
 */
function upstreamBase(base: string | undefined): string | undefined {
  const versioned = base && /^(.*?)(\/api)?\/v\d+$/i.exec(new URL(base).pathname.replace(/\/+$/, ''));
  if (!base || !versioned) return base;
  const corrected = new URL(base);
  corrected.pathname = versioned[1] || '/';
  if (corrected.password) corrected.password = 'PASSWORD';
  throw new ConfigError(
    'UPSTREAM_URL',
    `must be the backend's base URL without a version segment (the gateway adds /v2): set UPSTREAM_URL=${corrected.href.replace(/\/+$/, '')}`,
  );
}

/** Below this many bytes a signing secret can be guessed offline from one token (RFC 7518 3.2: at least the hash's size). */
export const MIN_SIGNING_SECRET_BYTES = 32;

/** Settings that are valid but deserve a line at start-up (an entry logs them as warnings). */
export function configWarnings(config: Config, now: number): string[] {
  const warnings: string[] = [];
  // A default that has passed is what the specification intends; only a date the operator set warns.
  const set = (name: Config['datesSet'][number]) => config.datesSet.includes(name);
  if (config.v1Sunset <= now && set('V1_SUNSET'))
    warnings.push(`V1_SUNSET (${new Date(config.v1Sunset).toISOString()}) has passed: every v1 request is answered 410.`);
  if (config.httpsRedirectUntil <= now && set('HTTPS_REDIRECT_UNTIL')) {
    warnings.push(
      `HTTPS_REDIRECT_UNTIL (${new Date(config.httpsRedirectUntil).toISOString()}) has passed: plain HTTP is refused with 426, not redirected (set a later HTTPS_REDIRECT_UNTIL to keep redirecting, and TRUST_PROXY=true behind a TLS proxy).`,
    );
  }
  const secretBytes = config.tokenSigningSecret === undefined ? undefined : new TextEncoder().encode(config.tokenSigningSecret).length;
  if (secretBytes !== undefined && secretBytes < MIN_SIGNING_SECRET_BYTES) {
    warnings.push(
      `TOKEN_SIGNING_SECRET is ${secretBytes} bytes: a secret shorter than ${MIN_SIGNING_SECRET_BYTES} bytes can be guessed from a token, and whoever guesses it can sign tokens; use ${MIN_SIGNING_SECRET_BYTES} random bytes (openssl rand -base64 32).`,
    );
  }
  return warnings;
}

/** Settings only the Node entry reads: the Workers start-up line leaves them out. */
const NODE_ONLY = ['port', 'host', 'credentialsFile', 'redisUrl', 'shutdown'] as const;
/** Settings only the Workers entry reads: the Node start-up line leaves them out. */
const WORKERS_ONLY = ['rateLimitMode'] as const;
/** Facts of the parse, not settings: never in the start-up line. */
const NOT_SETTINGS = ['datesSet'] as const;
const NODE_ONLY_HOSTILE = ['headersTimeoutMs', 'requestTimeoutMs', 'keepAliveTimeoutMs', 'maxConnections'] as const;

/** The configuration with secrets masked, for the start-up log line; on Workers without the Node-only settings. */
export function describeConfig(config: Config, runtime: 'node' | 'workers' = 'node'): Record<string, unknown> {
  const described = describeAll(config);
  for (const name of NOT_SETTINGS) delete described[name];
  if (runtime === 'node') {
    for (const name of WORKERS_ONLY) delete described[name];
    return described;
  }
  for (const name of NODE_ONLY) delete described[name];
  const hostile: Record<string, unknown> = { ...config.hostile };
  for (const name of NODE_ONLY_HOSTILE) delete hostile[name];
  return { ...described, hostile };
}

function describeAll(config: Config): Record<string, unknown> {
  return {
    ...config,
    upstreamAuthorization: config.upstreamAuthorization ? '[set]' : undefined,
    tokenSigningSecret: config.tokenSigningSecret ? '[set]' : '[random per process]',
    redisUrl: config.redisUrl && withoutPassword(config.redisUrl),
    httpsRedirectUntil: new Date(config.httpsRedirectUntil).toISOString(),
    v1DeprecatedAt: new Date(config.v1DeprecatedAt).toISOString(),
    v1Sunset: new Date(config.v1Sunset).toISOString(),
    migration: {
      ...config.migration,
      legacyAuthorization: config.migration.legacyAuthorization ? '[set]' : undefined,
      brownouts: config.migration.brownouts.map((b) => `${new Date(b.start).toISOString()}/${new Date(b.end).toISOString()}`),
    },
  };
}

/** `REDIS_URL`, refused at start-up unless it is a redis:// or rediss:// URL (never echoed: it may hold a password). */
function redisUrl(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  let parsed: URL | undefined;
  try {
    parsed = new URL(raw);
  } catch {
    parsed = undefined;
  }
  if (parsed?.protocol !== 'redis:' && parsed?.protocol !== 'rediss:') throw new ConfigError('REDIS_URL', 'must be a redis:// or rediss:// URL');
  return raw;
}

/** A URL for logs (a parsed `REDIS_URL`): a password it carries (`redis://:secret@host`) masked. */
function withoutPassword(raw: string): string {
  const url = new URL(raw);
  if (url.password) url.password = '[set]';
  return url.href;
}
