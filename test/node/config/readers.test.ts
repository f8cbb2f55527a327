/**
 * What an operator sets takes effect, and what it cannot take is refused with a message that says
 * why: every variable of the README's table, set to a value other than its default, changes the
 * configuration; the readers' spellings (true/1/yes, blanks, trailing slashes) and the messages of
 * the checks that span variables.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type Config, ConfigError, describeConfig, parseConfig } from '../../../src/config';

/** The variables of the README's table, in its order. */
const documented = [...readFileSync(new URL('../../../README.md', import.meta.url), 'utf8').matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]!);

const LEGACY = { LEGACY_V1_URL: 'https://legacy.internal/api/v1' };

/** Per variable: a value other than the default, what else it needs, and the part of the configuration it sets. */
const SET: Record<string, [value: string, read: (c: Config) => unknown, expected: unknown, needs?: Record<string, string>]> = {
  PORT: ['9000', (c) => c.port, 9000],
  HOST: ['0.0.0.0', (c) => c.host, '0.0.0.0'],
  DEMO_CREDENTIALS: ['allow', (c) => c.demoCredentials, true],
  CREDENTIALS_FILE: ['/etc/botanical/credentials.json', (c) => c.credentialsFile, '/etc/botanical/credentials.json'],
  TOKEN_SIGNING_SECRET: ['s'.repeat(40), (c) => c.tokenSigningSecret, 's'.repeat(40)],
  SERVICE_NAME: ['flora-api', (c) => c.serviceName, 'flora-api'],
  DOCS_URL: ['https://docs.example.org//', (c) => c.docsUrl, 'https://docs.example.org'],
  TRUST_PROXY: ['yes', (c) => c.trustProxy, true],
  PUBLIC_HOSTS: ['api.example.org', (c) => c.hostile.publicHosts, ['api.example.org']],
  HTTPS_REDIRECT_UNTIL: ['2027-01-01T00:00:00Z', (c) => c.httpsRedirectUntil, Date.parse('2027-01-01T00:00:00Z')],
  AUTH_FAILURES_PER_MINUTE: ['7', (c) => c.hostile.authFailuresPerMinute, 7],
  RATE_LIMIT_PER_MINUTE: ['60', (c) => c.rateLimitPerMinute, 60],
  TOKEN_RATE_LIMIT_PER_MINUTE: ['3', (c) => c.tokenRateLimitPerMinute, 3],
  RATE_LIMIT_MODE: ['exact', (c) => c.rateLimitMode, 'exact'],
  REDIS_URL: ['redis://cache.internal:6380', (c) => c.redisUrl, 'redis://cache.internal:6380'],
  V1_DEPRECATED_AT: ['2025-06-01T00:00:00Z', (c) => c.v1DeprecatedAt, Date.parse('2025-06-01T00:00:00Z')],
  V1_SUNSET: ['2028-01-01T00:00:00Z', (c) => c.v1Sunset, Date.parse('2028-01-01T00:00:00Z')],
  V1_ANSWER: ['legacy', (c) => c.migration.answer, 'legacy', LEGACY],
  LEGACY_V1_URL: ['https://legacy.internal/api/v1/', (c) => c.migration.legacyUrl, 'https://legacy.internal/api/v1'],
  LEGACY_V1_AUTHORIZATION: ['Basic bGVnYWN5', (c) => c.migration.legacyAuthorization, 'Basic bGVnYWN5'],
  V1_COMPARE_PERCENT: ['12.5', (c) => c.migration.comparePercent, 12.5, LEGACY],
  V1_COMPARE_IGNORE: [' meta.total, data[].synonyms ,', (c) => c.migration.compareIgnore, ['meta.total', 'data[].synonyms']],
  V1_BROWNOUTS: [
    '2027-05-04T14:00:00Z/PT1H',
    (c) => c.migration.brownouts,
    [{ start: Date.parse('2027-05-04T14:00:00Z'), end: Date.parse('2027-05-04T15:00:00Z') }],
  ],
  UPSTREAM_URL: ['https://backend.internal/', (c) => c.upstreamUrl, 'https://backend.internal'],
  UPSTREAM_AUTHORIZATION: ['Bearer upstream', (c) => c.upstreamAuthorization, 'Bearer upstream'],
  UPSTREAM_TIMEOUT_MS: ['1500', (c) => c.upstream.timeoutMs, 1500],
  UPSTREAM_RETRIES: ['0', (c) => c.upstream.retries, 0],
  UPSTREAM_RETRY_BUDGET_PERCENT: ['25', (c) => c.upstream.retryBudgetPercent, 25],
  UPSTREAM_BREAKER_THRESHOLD: ['2', (c) => c.upstream.breakerThreshold, 2],
  UPSTREAM_BREAKER_COOLDOWN_MS: ['2500', (c) => c.upstream.breakerCooldownMs, 2500],
  UPSTREAM_CACHE_TTL_MS: ['0', (c) => c.upstream.cacheTtlMs, 0],
  UPSTREAM_STALE_MS: ['60000', (c) => c.upstream.staleMs, 60_000],
  UPSTREAM_STALE_AFTER_MS: ['50', (c) => c.upstream.staleAfterMs, 50],
  UPSTREAM_CACHE_MAX_ENTRIES: ['10', (c) => c.upstream.cacheMaxEntries, 10],
  UPSTREAM_CACHE_MAX_BYTES: ['4096', (c) => c.upstream.cacheMaxBytes, 4096],
  OTEL_EXPORTER_OTLP_ENDPOINT: ['http://127.0.0.1:4318', (c) => c.otlpEndpoint, 'http://127.0.0.1:4318'],
  TRUST_TRACEPARENT: ['1', (c) => c.trustTraceparent, true],
  METRICS_PORT: ['9464', (c) => c.metrics.port, 9464],
  METRICS_HOST: ['0.0.0.0', (c) => c.metrics.host, '0.0.0.0'],
  HEADERS_TIMEOUT_MS: ['2000', (c) => c.hostile.headersTimeoutMs, 2000],
  REQUEST_TIMEOUT_MS: ['4000', (c) => c.hostile.requestTimeoutMs, 4000],
  KEEP_ALIVE_TIMEOUT_MS: ['1000', (c) => c.hostile.keepAliveTimeoutMs, 1000],
  MAX_CONNECTIONS: ['64', (c) => c.hostile.maxConnections, 64],
  SHUTDOWN_DELAY_MS: ['3000', (c) => c.shutdown.delayMs, 3000],
  SHUTDOWN_TIMEOUT_MS: ['9000', (c) => c.shutdown.timeoutMs, 9000],
};

const problem = (vars: Record<string, string>): string => {
  try {
    parseConfig(vars);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).name).toBe('ConfigError');
    return (err as Error).message;
  }
  throw new Error(`${JSON.stringify(vars)} was accepted`);
};

describe('every documented variable takes effect', () => {
  it('the table here holds exactly the README’s variables', () => {
    expect(documented.length).toBeGreaterThan(40);
    expect(Object.keys(SET).sort()).toEqual([...documented].sort());
  });

  it('every default the README states is the default', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const stated = new Map([...readme.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \| `([^`]+)` \|/gm)].map((m) => [m[1]!, m[2]!]));
    expect(stated.size).toBeGreaterThan(30);
    const defaults = parseConfig({});
    const spelled = (value: unknown) => (typeof value === 'number' && value > 1e12 ? new Date(value).toISOString().replace('.000Z', 'Z') : String(value));
    for (const [name, text] of stated) expect(spelled(SET[name]![1](defaults)), name).toBe(text);
  });

  it.each(documented)('%s, set, changes the configuration from its default to what it says', (name) => {
    const [value, read, expected, needs = {}] = SET[name]!;
    expect(read(parseConfig(needs))).not.toEqual(expected);
    expect(read(parseConfig({ ...needs, [name]: value }))).toEqual(expected);
    // A blank value is no value: the default again.
    expect(read(parseConfig({ ...needs, [name]: '   ' }))).toEqual(read(parseConfig(needs)));
  });
});

describe('the readers’ spellings', () => {
  it.each(['true', '1', 'yes', 'TRUE', ' Yes '])('a switch set to %j is on', (value) => {
    expect(parseConfig({ TRUST_PROXY: value }).trustProxy).toBe(true);
  });

  it.each(['false', '0', 'no', 'NO', ''])('a switch set to %j is off', (value) => {
    expect(parseConfig({ TRUST_PROXY: value }).trustProxy).toBe(false);
  });

  it('a switch set to anything else is refused, quoting it', () => {
    expect(problem({ TRUST_TRACEPARENT: 'on' })).toBe('Invalid configuration: TRUST_TRACEPARENT must be true or false (got "on")');
  });

  it('a number is read trimmed, and one out of range is refused naming the range', () => {
    expect(parseConfig({ PORT: ' 9000 ' }).port).toBe(9000);
    expect(problem({ PORT: '65536' })).toBe('Invalid configuration: PORT must be a whole number from 0 to 65535 (got "65536")');
    expect(problem({ MAX_CONNECTIONS: '0' })).toBe('Invalid configuration: MAX_CONNECTIONS must be a whole number >= 1 (got "0")');
  });

  it('a URL other than http(s), or none at all, is refused quoting it', () => {
    expect(problem({ OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://collector:4317' })).toBe(
      'Invalid configuration: OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL (got "grpc://collector:4317")',
    );
    expect(problem({ DOCS_URL: 'docs' })).toBe('Invalid configuration: DOCS_URL must be an http(s) URL (got "docs")');
  });

  it.each([
    ['2027-01-01T00:00', true],
    ['2027-01-01T00:00:00', true],
    ['2027-01-01T00:00:00.125', true],
    ['2027-01-01', false],
    ['x2027-01-01T00:00', false],
    ['2027-01-01T00:00:00 UTC', false],
    ['2027-01-01T00:00:00.', false],
  ])('a date-time %j is refused, saying it has no offset: %s', (value, saysNoOffset) => {
    const message = problem({ V1_SUNSET: value });
    if (!saysNoOffset) {
      expect(message).toBe(
        `Invalid configuration: V1_SUNSET must be an RFC 3339 date-time with an offset, Z or +hh:mm, such as 2027-07-31T00:00:00Z (got ${JSON.stringify(value)})`,
      );
    }
    expect(message).toContain(`such as 2027-07-31T00:00:00Z`);
    expect(message.endsWith(`(got ${JSON.stringify(value)})`)).toBe(true);
    expect(message.includes(" (this one has no offset, so it would depend on the server's time zone)")).toBe(saysNoOffset);
  });
});

describe('checks across variables', () => {
  it('RATE_LIMIT_MODE is local unless set to exact; anything else is refused', () => {
    expect(parseConfig({}).rateLimitMode).toBe('local');
    expect(parseConfig({ RATE_LIMIT_MODE: 'local' }).rateLimitMode).toBe('local');
    expect(problem({ RATE_LIMIT_MODE: 'strict' })).toBe('Invalid configuration: RATE_LIMIT_MODE must be local or exact (got "strict")');
  });

  it('SERVICE_NAME must be able to name a URN namespace', () => {
    expect(problem({ SERVICE_NAME: 'flora api' })).toBe('Invalid configuration: SERVICE_NAME must be letters, digits and hyphens (it is a URN namespace)');
  });

  it('METRICS_PORT may not be the API port, unless both pick a free port', () => {
    expect(problem({ PORT: '9000', METRICS_PORT: '9000' })).toBe(
      'Invalid configuration: METRICS_PORT must differ from PORT (9000): metrics are never served on the API port',
    );
    expect(problem({ METRICS_PORT: '8787' })).toContain('METRICS_PORT must differ from PORT (8787)');
    expect(parseConfig({ PORT: '0', METRICS_PORT: '0' }).metrics.port).toBe(0);
    expect(parseConfig({ PORT: '9000', METRICS_PORT: '9001' }).metrics.port).toBe(9001);
  });

  it('UPSTREAM_URL with a version segment is refused with the base to set instead, its password hidden', () => {
    expect(problem({ UPSTREAM_URL: 'https://backend.internal/api/v2/' })).toBe(
      "Invalid configuration: UPSTREAM_URL must be the backend's base URL without a version segment (the gateway adds /v2): set UPSTREAM_URL=https://backend.internal",
    );
    expect(problem({ UPSTREAM_URL: 'https://user:hunter2@backend.internal/gw/v12' })).toBe(
      "Invalid configuration: UPSTREAM_URL must be the backend's base URL without a version segment (the gateway adds /v2): set UPSTREAM_URL=https://user:PASSWORD@backend.internal/gw",
    );
    expect(parseConfig({ UPSTREAM_URL: 'https://backend.internal/v2x' }).upstreamUrl).toBe('https://backend.internal/v2x');
    expect(parseConfig({ UPSTREAM_URL: 'https://backend.internal/gateway/v' }).upstreamUrl).toBe('https://backend.internal/gateway/v');
  });

  it('REDIS_URL must be a redis URL, and is never quoted back', () => {
    expect(problem({ REDIS_URL: 'http://:hunter2@cache:6379' })).toBe('Invalid configuration: REDIS_URL must be a redis:// or rediss:// URL');
    expect(problem({ REDIS_URL: 'not a url :hunter2' })).toBe('Invalid configuration: REDIS_URL must be a redis:// or rediss:// URL');
    expect(parseConfig({ REDIS_URL: 'rediss://cache:6380' }).redisUrl).toBe('rediss://cache:6380');
  });

  it('LEGACY_V1_URL carries no credentials, query or fragment', () => {
    for (const url of ['https://user@legacy.internal/api/v1', 'https://:pw@legacy.internal/api/v1', 'https://user:pw@legacy.internal/api/v1']) {
      expect(problem({ LEGACY_V1_URL: url })).toBe('Invalid configuration: LEGACY_V1_URL must not carry credentials; set LEGACY_V1_AUTHORIZATION instead');
    }
    for (const url of ['https://legacy.internal/api/v1?key=1', 'https://legacy.internal/api/v1#top']) {
      expect(problem({ LEGACY_V1_URL: url })).toBe('Invalid configuration: LEGACY_V1_URL must be a base URL without query or fragment');
    }
  });

  it('V1_ANSWER is facade or legacy', () => {
    expect(problem({ ...LEGACY, V1_ANSWER: 'both' })).toBe('Invalid configuration: V1_ANSWER must be facade or legacy (got "both")');
  });

  it.each(['0', '0.5', '12.34', '100', '100.00'])('V1_COMPARE_PERCENT=%s is a share from 0 to 100 in two decimals', (value) => {
    expect(parseConfig({ ...LEGACY, V1_COMPARE_PERCENT: value }).migration.comparePercent).toBe(Number(value));
  });

  it.each(['12.345', '100.01', '1000', '5%', '-1', '.5', '5.'])('V1_COMPARE_PERCENT=%s is refused', (value) => {
    expect(problem({ ...LEGACY, V1_COMPARE_PERCENT: value })).toBe(
      `Invalid configuration: V1_COMPARE_PERCENT must be a number from 0 to 100 (got ${JSON.stringify(value)})`,
    );
  });

  it('what needs the legacy backend says so when LEGACY_V1_URL is missing', () => {
    expect(problem({ V1_ANSWER: 'legacy' })).toBe('Invalid configuration: LEGACY_V1_URL must be set: V1_ANSWER=legacy needs the legacy v1 backend');
    expect(problem({ V1_COMPARE_PERCENT: '5' })).toBe('Invalid configuration: LEGACY_V1_URL must be set: V1_COMPARE_PERCENT=5 needs the legacy v1 backend');
    expect(problem({ V1_ANSWER: 'legacy', V1_COMPARE_PERCENT: '0.5' })).toBe(
      'Invalid configuration: LEGACY_V1_URL must be set: V1_ANSWER=legacy and V1_COMPARE_PERCENT=0.5 need the legacy v1 backend',
    );
    expect(parseConfig({ V1_COMPARE_PERCENT: '0' }).migration.legacyUrl).toBeUndefined();
  });

  it('V1_COMPARE_IGNORE holds JSON paths of the form a.b[].c, and quotes one that is not', () => {
    expect(problem({ V1_COMPARE_IGNORE: 'meta.total, data[0].id' })).toBe(
      'Invalid configuration: V1_COMPARE_IGNORE holds a JSON path that is not of the form a.b[].c (got "data[0].id")',
    );
  });
});

describe('the configuration as the start-up line prints it', () => {
  it('masks what is secret and writes dates and brownouts as ISO 8601', () => {
    const described = describeConfig(
      parseConfig({
        UPSTREAM_AUTHORIZATION: 'Bearer up-hunter2',
        REDIS_URL: 'redis://:hunter2@cache.internal:6379/0',
        V1_BROWNOUTS: '2027-05-04T14:00:00Z/PT1H',
        ...LEGACY,
        LEGACY_V1_AUTHORIZATION: 'Basic hunter2',
      }),
    );
    expect(JSON.stringify(described)).not.toContain('hunter2');
    expect(described).toMatchObject({
      upstreamAuthorization: '[set]',
      tokenSigningSecret: '[random per process]',
      redisUrl: 'redis://:%5Bset%5D@cache.internal:6379/0',
      v1Sunset: '2027-07-31T00:00:00.000Z',
      migration: { legacyAuthorization: '[set]', brownouts: ['2027-05-04T14:00:00.000Z/2027-05-04T15:00:00.000Z'] },
    });
  });

  it('prints a Redis URL without a password as it was given, and no upstream authorization when none is set', () => {
    const described = describeConfig(parseConfig({ REDIS_URL: 'redis://cache.internal:6379' }));
    expect(described.redisUrl).toBe('redis://cache.internal:6379');
    expect(described.upstreamAuthorization).toBeUndefined();
    expect(describeConfig(parseConfig({})).redisUrl).toBeUndefined();
  });
});
