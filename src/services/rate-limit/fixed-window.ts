import type { RateLimitDecision } from '../rate-limiter';

/** One bucket's current window: when it began (epoch ms) and how many requests it has allowed. */
export interface WindowState {
  start: number;
  count: number;
}

/**
 * Counts one request in a fixed window that begins with the bucket's first request, so a fresh
 * bucket answers `t=<window>` (CONTRACT section 11). Refused requests do not use up the window.
 */
export function countHit(
  state: WindowState | undefined,
  now: number,
  limit: number,
  windowSeconds: number,
): { state: WindowState; decision: RateLimitDecision } {
  const windowMs = windowSeconds * 1000;
  const current = state && now < state.start + windowMs && now >= state.start ? state : { start: now, count: 0 };
  const allowed = current.count < limit;
  const next = allowed ? { start: current.start, count: current.count + 1 } : current;
  return {
    state: next,
    decision: {
      allowed,
      limit,
      remaining: allowed ? limit - next.count : 0,
      resetSeconds: Math.max(1, Math.ceil((current.start + windowMs - now) / 1000)),
    },
  };
}
