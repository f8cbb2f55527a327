import { LRUCache } from 'lru-cache';
import type { Clock } from '../clock';
import type { RateLimitDecision, RateLimiter } from '../rate-limiter';
import { countHit, peekWindow, type WindowState } from './fixed-window';

/**
 * Fixed windows aligned to the clock (a 60 s window opens at every whole minute), one per bucket,
 * in a bounded LRU: however many projects and subjects appear, memory stays under `maxBuckets`
 * entries; evicting a bucket only forgets a count that was about to expire anyway.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows: LRUCache<string, WindowState>;

  constructor(
    private readonly clock: Clock,
    maxBuckets = 50_000,
  ) {
    // Bounded by size, each bucket counting 1, rather than by `max`: with `max` the cache allocates
    // all its slots at once (some 11 ms at every start for 50,000); this way it grows as buckets come.
    this.windows = new LRUCache({ maxSize: maxBuckets, sizeCalculation: () => 1 });
  }

  /** Buckets currently held (bounded by `maxBuckets`). */
  get size(): number {
    return this.windows.size;
  }

  hit(bucket: string, limit: number, windowSeconds: number): RateLimitDecision {
    const held = this.windows.get(bucket);
    const { state, decision } = countHit(held, this.clock.now(), limit, windowSeconds);
    // The same window counted once more: updated where it is held (the lookup made it the most
    // recently used); a new window replaces it.
    if (held && held.start === state.start) held.count = state.count;
    else this.windows.set(bucket, state);
    return decision;
  }

  peek(bucket: string, limit: number, windowSeconds: number): RateLimitDecision {
    return peekWindow(this.windows.get(bucket), this.clock.now(), limit, windowSeconds);
  }
}
