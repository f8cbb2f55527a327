import type { RateLimitDecision, RateLimiter } from './rate-limiter';

/** One bucket's counter as the limiter reaches it: the RPC stub of its Durable Object. */
export interface BucketCounter {
  hit(limit: number, windowSeconds: number): Promise<RateLimitDecision>;
  peek(limit: number, windowSeconds: number): Promise<RateLimitDecision>;
}

/**
 * Rate limits held by one Durable Object per bucket (project, token subject, OAuth client).
 * The object is the single authority for its bucket, wherever the request landed, so counts are
 * exact and the `RateLimit` header's remaining count is true; the price is one round trip to the
 * object's location per request. Errors reach the caller (a 500), they do not silently allow.
 */
export class DurableObjectRateLimiter implements RateLimiter {
  constructor(private readonly counterFor: (bucket: string) => BucketCounter) {}

  hit(bucket: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    return this.counterFor(bucket).hit(limit, windowSeconds);
  }

  peek(bucket: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    return this.counterFor(bucket).peek(limit, windowSeconds);
  }
}
