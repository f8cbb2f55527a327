import type { RateLimitDecision } from './rate-limiter';

/** One bucket's current window: when it opened (epoch ms) and how many requests it has allowed. */
export interface WindowState {
  start: number;
  count: number;
}

/** When the window holding `now` opened (epoch ms): windows are aligned to the clock. */
export const windowStart = (now: number, windowSeconds: number): number => Math.floor(now / (windowSeconds * 1000)) * windowSeconds * 1000;

/** Seconds until the window that opened at `start` ends (the `t` of `RateLimit`, a 429's `Retry-After`). */
const secondsLeft = (start: number, now: number, windowSeconds: number): number => Math.max(1, Math.ceil((start + windowSeconds * 1000 - now) / 1000));

/**
 * Counts one request in fixed windows aligned to the clock (a 60 s window opens at every whole
 * minute), the one rule of every rate limiter here. Refused requests do not use up the window.
 */
export function countHit(
  state: WindowState | undefined,
  now: number,
  limit: number,
  windowSeconds: number,
): { state: WindowState; decision: RateLimitDecision } {
  const start = windowStart(now, windowSeconds);
  const current = state && state.start === start ? state : { start, count: 0 };
  const allowed = current.count < limit;
  const next = allowed ? { start, count: current.count + 1 } : current;
  return {
    state: next,
    decision: {
      allowed,
      limit,
      remaining: allowed ? limit - next.count : 0,
      resetSeconds: secondsLeft(start, now, windowSeconds),
    },
  };
}

/** The bucket's window as it stands at `now`, counting nothing (the failure throttle asks before it checks). */
export function peekWindow(state: WindowState | undefined, now: number, limit: number, windowSeconds: number): RateLimitDecision {
  const start = windowStart(now, windowSeconds);
  const count = state && state.start === start ? state.count : 0;
  return {
    allowed: count < limit,
    limit,
    remaining: Math.max(0, limit - count),
    resetSeconds: secondsLeft(start, now, windowSeconds),
  };
}
