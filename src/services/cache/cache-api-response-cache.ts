import type { Clock } from '../clock';
import type { CachedResponse, ResponseCache } from './response-cache';

/** The part of the Web Cache API this cache uses (on Workers: `caches.default`). */
export type RequestCache = Pick<Cache, 'match' | 'put'>;

/** A host no request ever reaches: cache keys live under it so they cannot collide with real URLs. */
const ORIGIN = 'https://gateway-cache.internal/';
const STATUS = 'Gateway-Cache-Status';
const FRESH_UNTIL = 'Gateway-Cache-Fresh-Until';
const STALE_UNTIL = 'Gateway-Cache-Stale-Until';

/**
 * The upstream response cache over the Cache API. Entries are per data centre and may vanish at
 * any time (eviction; on `*.workers.dev` the Cache API stores nothing), so a miss is always a
 * normal answer. Every entry is stored as a 200 with its real status and instants in headers, and
 * expires from the cache when its stale window ends.
 */
export class CacheApiResponseCache implements ResponseCache {
  constructor(
    private readonly cache: RequestCache,
    private readonly clock: Clock,
  ) {}

  async get(key: string): Promise<CachedResponse | undefined> {
    const hit = await this.cache.match(cacheUrl(key));
    if (!hit) return undefined;
    const status = Number(hit.headers.get(STATUS));
    const freshUntil = Number(hit.headers.get(FRESH_UNTIL));
    const staleUntil = Number(hit.headers.get(STALE_UNTIL));
    const body = await hit.text();
    if (![status, freshUntil, staleUntil].every(Number.isInteger)) return undefined;
    return { status, body, freshUntil, staleUntil };
  }

  async set(key: string, entry: CachedResponse): Promise<void> {
    const ttlSeconds = Math.ceil((entry.staleUntil - this.clock.now()) / 1000);
    if (ttlSeconds <= 0) return;
    const headers = {
      'Content-Type': 'application/json',
      'Cache-Control': `max-age=${ttlSeconds}`,
      [STATUS]: String(entry.status),
      [FRESH_UNTIL]: String(entry.freshUntil),
      [STALE_UNTIL]: String(entry.staleUntil),
    };
    await this.cache.put(cacheUrl(key), new Response(entry.body, { headers }));
  }
}

function cacheUrl(key: string): string {
  return ORIGIN + encodeURIComponent(key);
}
