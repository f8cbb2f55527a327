import type { MaybePromise } from '../../core/maybe-promise';

/** The outcome of counting one request against a bucket. */
export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Requests left in the current window after this one (0 when refused). */
  remaining: number;
  /** Seconds until the window resets (the `t` of `RateLimit`, the `Retry-After` of a 429). */
  resetSeconds: number;
}

/** A decision at once (a limiter in this process), or once a shared limiter has answered. */
export type Decided = MaybePromise<RateLimitDecision>;

/**
 * Counts requests per bucket (a project, a token subject, an OAuth client) in fixed windows.
 * Node uses an in-memory implementation (or Redis, shared); the Workers entry a Durable Object
 * per bucket. An in-process limiter answers synchronously, so a request it counts waits for nothing.
 */
export interface RateLimiter {
  hit(bucket: string, limit: number, windowSeconds: number): Decided;
  /** The bucket as it stands, without counting: `allowed` is false once the window is full. */
  peek(bucket: string, limit: number, windowSeconds: number): Decided;
}
