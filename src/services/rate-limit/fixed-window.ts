import type { RateLimitDecision } from '../rate-limiter';

/** One bucket's current window: when it opened (epoch ms) and how many requests it has allowed. */
export interface WindowState {
  start: number;
  count: number;
}

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
  const length = windowSeconds * 1000;
  const start = Math.floor(now / length) * length;
  const current = state && state.start === start ? state : { start, count: 0 };
  const allowed = current.count < limit;
  const next = allowed ? { start, count: current.count + 1 } : current;
  return {
    state: next,
    decision: {
      allowed,
      limit,
      remaining: allowed ? limit - next.count : 0,
      resetSeconds: Math.max(1, Math.ceil((start + length - now) / 1000)),
    },
  };
}

/** The bucket's window as it stands at `now`, counting nothing (the failure throttle asks before it checks). */
export function peekWindow(state: WindowState | undefined, now: number, limit: number, windowSeconds: number): RateLimitDecision {
  const length = windowSeconds * 1000;
  const start = Math.floor(now / length) * length;
  const count = state && state.start === start ? state.count : 0;
  return {
    allowed: count < limit,
    limit,
    remaining: Math.max(0, limit - count),
    resetSeconds: Math.max(1, Math.ceil((start + length - now) / 1000)),
  };
}
