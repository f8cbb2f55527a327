import { LRUCache } from 'lru-cache';
import type { Clock } from './clock';
import type { RateLimitDecision, RateLimiter } from './rate-limiter';

interface Window {
  /** Epoch ms at which this fixed window opened (a multiple of the window length). */
  start: number;
  count: number;
}

/**
 * Fixed windows aligned to the clock (a 60 s window opens at every whole minute), one per bucket,
 * in a bounded LRU: however many projects and subjects appear, memory stays under `maxBuckets`
 * entries; evicting a bucket only forgets a count that was about to expire anyway.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows: LRUCache<string, Window>;

  constructor(private readonly clock: Clock, maxBuckets = 50_000) {
    this.windows = new LRUCache({ max: maxBuckets });
  }

  /** Buckets currently held (bounded by `maxBuckets`). */
  get size(): number {
    return this.windows.size;
  }

  async hit(bucket: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    const now = this.clock.now();
    const length = windowSeconds * 1000;
    const start = Math.floor(now / length) * length;
    const held = this.windows.get(bucket);
    const window = held && held.start === start ? held : { start, count: 0 };
    const resetSeconds = Math.max(1, Math.ceil((start + length - now) / 1000));
    if (window.count >= limit) {
      this.windows.set(bucket, window);
      return { allowed: false, limit, remaining: 0, resetSeconds };
    }
    window.count += 1;
    this.windows.set(bucket, window);
    return { allowed: true, limit, remaining: limit - window.count, resetSeconds };
  }
}
