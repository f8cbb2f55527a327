import { LRUCache } from 'lru-cache';
import { entryBytes } from '../cache/entry-size';
import type { Clock } from '../clock';
import type { RateLimitDecision, RateLimiter } from './rate-limiter';
import { countHit, peekWindow, type WindowState } from './fixed-window';

/**
 * Bytes the buckets may take, keys and overhead counted: bucket names hold what callers send
 * (addresses, `client_id`s of failed authentications), so a count of buckets would not bound them.
 * Some 40,000 buckets of typical names.
 */
export const RATE_LIMIT_BYTES = 16 * 1024 * 1024;

/** A window's own bytes: its object with a start and a count. */
const WINDOW_BYTES = 32;

/**
 * Fixed windows aligned to the clock (a 60 s window opens at every whole minute), one per bucket,
 * in a bounded LRU: however many projects and subjects appear, memory stays under `maxBytes`;
 * evicting a bucket only forgets a count that was about to expire anyway.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows: LRUCache<string, WindowState>;

  constructor(
    private readonly clock: Clock,
    maxBytes = RATE_LIMIT_BYTES,
  ) {
    // Bounded by size rather than by `max`: with `max` the cache allocates all its slots at once
    // (some 11 ms at every start for 50,000); this way it grows as buckets come.
    this.windows = new LRUCache({ maxSize: maxBytes, sizeCalculation: (_, key) => entryBytes(key, WINDOW_BYTES) });
  }

  /** Buckets currently held. */
  get size(): number {
    return this.windows.size;
  }

  /** Bytes counted for the buckets held (bounded by `maxBytes`). */
  get bytes(): number {
    return this.windows.calculatedSize;
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
