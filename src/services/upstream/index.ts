import { ConfigError, type Config } from '../../config';
import type { LogLine } from '../log';
import type { Clock } from '../clock';
import type { Metrics } from '../metrics';
import type { ResponseCache } from '../cache/response-cache';
import { MemoryResponseCache } from '../cache/memory-response-cache';
import { UpstreamSource } from './upstream-source';

export { UpstreamSource } from './upstream-source';
export { MemoryResponseCache } from '../cache/memory-response-cache';

export interface UpstreamParts {
  clock: Clock;
  log(line: LogLine): void;
  /** The response cache; an in-memory LRU sized by the configuration unless given (Workers: the Cache API). */
  cache?: ResponseCache;
  fetch?: typeof fetch;
  /** None unless given. */
  metrics?: Metrics;
}

/** The upstream record source for `UPSTREAM_URL`, runtime-neutral: both entries call this. */
export function createUpstreamSource(config: Config, parts: UpstreamParts): UpstreamSource {
  const baseUrl = config.upstreamUrl;
  if (!baseUrl) throw new ConfigError('UPSTREAM_URL', 'is not set');
  const url = new URL(baseUrl);
  // fetch refuses URLs with credentials, and they would be printed with the configuration.
  if (url.username || url.password) throw new ConfigError('UPSTREAM_URL', 'must not carry credentials; set UPSTREAM_AUTHORIZATION instead');
  if (url.search || url.hash) throw new ConfigError('UPSTREAM_URL', 'must be a base URL without query or fragment');
  const tuning = config.upstream;
  return new UpstreamSource({
    baseUrl,
    authorization: config.upstreamAuthorization,
    fetch: parts.fetch,
    cache: parts.cache ?? new MemoryResponseCache({ maxEntries: tuning.cacheMaxEntries, maxBytes: tuning.cacheMaxBytes }, parts.clock),
    clock: parts.clock,
    tuning,
    log: parts.log,
    metrics: parts.metrics,
  });
}
