import { describe, expect, it } from 'vitest';
import { countHit, peekWindow, type WindowState } from '../../../../src/services/rate-limit/fixed-window';

const T0 = Date.parse('2026-11-21T12:00:00Z'); // a whole minute

describe('countHit: fixed windows aligned to the clock, shared by every rate limiter', () => {
  it.each<[string, WindowState | undefined, number, WindowState, { allowed: boolean; remaining: number; resetSeconds: number }]>([
    ['a fresh bucket at a whole minute opens its window', undefined, T0, { start: T0, count: 1 }, { allowed: true, remaining: 2, resetSeconds: 60 }],
    ['a fresh bucket mid-minute joins the current window', undefined, T0 + 45_000, { start: T0, count: 1 }, { allowed: true, remaining: 2, resetSeconds: 15 }],
    ['a later hit counts in the same window', { start: T0, count: 1 }, T0 + 10_500, { start: T0, count: 2 }, { allowed: true, remaining: 1, resetSeconds: 50 }],
    ['the last allowed hit leaves 0', { start: T0, count: 2 }, T0 + 59_999, { start: T0, count: 3 }, { allowed: true, remaining: 0, resetSeconds: 1 }],
    [
      'over the limit is refused and not counted',
      { start: T0, count: 3 },
      T0 + 30_000,
      { start: T0, count: 3 },
      { allowed: false, remaining: 0, resetSeconds: 30 },
    ],
    [
      'the window ends at the next whole minute',
      { start: T0, count: 3 },
      T0 + 60_000,
      { start: T0 + 60_000, count: 1 },
      { allowed: true, remaining: 2, resetSeconds: 60 },
    ],
    [
      'a window from a later minute (clock moved back) is replaced',
      { start: T0 + 60_000, count: 3 },
      T0 + 1_000,
      { start: T0, count: 1 },
      { allowed: true, remaining: 2, resetSeconds: 59 },
    ],
  ])('%s', (_name, state, now, nextState, decision) => {
    const result = countHit(state, now, 3, 60);
    expect(result.state).toEqual(nextState);
    expect(result.decision).toEqual({ limit: 3, ...decision });
  });
});

describe('peekWindow: the window as it stands, counting nothing', () => {
  it.each<[string, WindowState | undefined, number, { allowed: boolean; remaining: number; resetSeconds: number }]>([
    ['a fresh bucket is open', undefined, T0 + 20_000, { allowed: true, remaining: 3, resetSeconds: 40 }],
    ['a bucket with room is open', { start: T0, count: 2 }, T0 + 1_000, { allowed: true, remaining: 1, resetSeconds: 59 }],
    ['a full window is closed', { start: T0, count: 3 }, T0 + 30_000, { allowed: false, remaining: 0, resetSeconds: 30 }],
    ['a full window of an earlier minute no longer counts', { start: T0, count: 3 }, T0 + 60_000, { allowed: true, remaining: 3, resetSeconds: 60 }],
  ])('%s', (_name, state, now, decision) => {
    const before = state && { ...state };
    expect(peekWindow(state, now, 3, 60)).toEqual({ limit: 3, ...decision });
    expect(state).toEqual(before);
  });
});
