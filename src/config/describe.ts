import type { Config } from './types';

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

/** A URL for logs (a parsed `REDIS_URL`): a password it carries (`redis://:secret@host`) masked. */
function withoutPassword(raw: string): string {
  const url = new URL(raw);
  if (url.password) url.password = '[set]';
  return url.href;
}
