import { DurableObject } from 'cloudflare:workers';
import type { RateLimitDecision } from '../services/rate-limit/rate-limiter';
import { countHit, peekWindow, type WindowState } from '../services/rate-limit/fixed-window';

const WINDOW_KEY = 'window';

/**
 * The Durable Object behind `DurableObjectRateLimiter`: one instance per bucket, reached by
 * `idFromName(bucket)`. Its clock is the bucket's only clock, so callers in any location agree.
 * The window lives in the object's SQLite storage through the synchronous KV API: each call
 * reads, counts and writes without yielding, so concurrent calls cannot interleave, and a count
 * survives the object being evicted mid-window.
 */
export class RateLimiterObject extends DurableObject {
  hit(limit: number, windowSeconds: number): RateLimitDecision {
    const storage = this.ctx.storage.kv;
    const { state, decision } = countHit(storage.get<WindowState>(WINDOW_KEY), Date.now(), limit, windowSeconds);
    storage.put(WINDOW_KEY, state);
    return decision;
  }

  peek(limit: number, windowSeconds: number): RateLimitDecision {
    return peekWindow(this.ctx.storage.kv.get<WindowState>(WINDOW_KEY), Date.now(), limit, windowSeconds);
  }
}
