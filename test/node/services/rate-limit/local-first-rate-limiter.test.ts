/**
 * Rate limits decided in the instance, reconciled with a distant authority after the response
 * (docs/reference/operations.md): what is decided at once, and how the authority's answers correct it.
 */
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../../src/services/clock';
import { LocalFirstRateLimiter } from '../../../../src/services/rate-limit/local-first-rate-limiter';
import { MemoryRateLimiter } from '../../../../src/services/rate-limit/memory-rate-limiter';
import type { RateLimitDecision, RateLimiter } from '../../../../src/services/rate-limit/rate-limiter';

/** A clock standing 10 s into a minute; `at` moves it. */
function manualClock(): Clock & { at(ms: number): void } {
  let now = Date.parse('2026-11-28T10:00:10Z');
  return { now: () => now, at: (ms) => void (now = ms) };
}

/** The authority as other instances see it too: a memory limiter whose answers this test releases. */
function distantAuthority(clock: Clock) {
  const counts = new MemoryRateLimiter(clock);
  const waiting: Array<() => void> = [];
  const later = <T>(answer: () => T) =>
    new Promise<T>((resolve) => {
      waiting.push(() => resolve(answer()));
    });
  const authority: RateLimiter = {
    hit: (bucket, limit, windowSeconds) => later(() => counts.hit(bucket, limit, windowSeconds)),
    peek: (bucket, limit, windowSeconds) => later(() => counts.peek(bucket, limit, windowSeconds)),
  };
  return {
    authority,
    /** Another instance's request, counted by the authority directly. */
    elsewhere: (bucket: string, limit: number) => counts.hit(bucket, limit, 60),
    asked: () => waiting.length,
    /** Lets every call made so far reach the authority and come back. */
    answer: async (deferred: Array<Promise<unknown>>) => {
      for (const release of waiting.splice(0)) release();
      await Promise.all(deferred.splice(0));
    },
  };
}

function setup() {
  const clock = manualClock();
  const distant = distantAuthority(clock);
  const deferred: Array<Promise<unknown>> = [];
  const failures: string[] = [];
  const limiter = new LocalFirstRateLimiter(distant.authority, clock, {
    defer: (task) => void deferred.push(task),
    failed: (bucket, err) => void failures.push(`${bucket}: ${(err as Error).message}`),
  });
  return { clock, distant, deferred, failures, limiter, answer: () => distant.answer(deferred) };
}

const allowed = (d: RateLimitDecision | Promise<RateLimitDecision>) => (d as RateLimitDecision).allowed;

describe('LocalFirstRateLimiter', () => {
  it('decides at once, counting down to the limit, and sends each admitted hit to the authority afterwards', async () => {
    const { limiter, distant, deferred, answer } = setup();
    const decisions = Array.from({ length: 4 }, () => limiter.hit('project:a', 3, 60));
    for (const d of decisions) expect(d).not.toBeInstanceOf(Promise);
    expect(decisions.map((d) => [(d as RateLimitDecision).allowed, (d as RateLimitDecision).remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    // Three hits deferred, none for the refusal; the authority counts them once they arrive.
    expect(deferred).toHaveLength(3);
    expect(distant.asked()).toBe(3);
    await answer();
    expect(distant.elsewhere('project:a', 3).allowed, 'the authority holds the three').toBe(false);
  });

  it("learns from the authority's answer what other instances admitted, and refuses sooner", async () => {
    const { limiter, distant, answer } = setup();
    for (let i = 0; i < 3; i++) distant.elsewhere('project:b', 5);
    expect(allowed(limiter.hit('project:b', 5, 60))).toBe(true);
    await answer();
    // The authority now counts 4: one more is admitted, then refused.
    expect(limiter.hit('project:b', 5, 60)).toMatchObject({ allowed: true, remaining: 0 });
    expect(allowed(limiter.hit('project:b', 5, 60))).toBe(false);
  });

  it('a hit the authority refused (the window filled elsewhere) makes the bucket full here', async () => {
    const { limiter, distant, answer } = setup();
    for (let i = 0; i < 5; i++) distant.elsewhere('project:c', 5);
    expect(allowed(limiter.hit('project:c', 5, 60)), 'decided before the authority was heard').toBe(true);
    await answer();
    expect(allowed(limiter.hit('project:c', 5, 60))).toBe(false);
  });

  it('peek answers from what is known, asking the authority once a window in the background', async () => {
    const { limiter, distant, answer } = setup();
    for (let i = 0; i < 3; i++) distant.elsewhere('authfail:addr:192.0.2.1', 3);
    expect(limiter.peek('authfail:addr:192.0.2.1', 3, 60)).toMatchObject({ allowed: true });
    expect(limiter.peek('authfail:addr:192.0.2.1', 3, 60)).toMatchObject({ allowed: true });
    expect(distant.asked(), 'one question for the window').toBe(1);
    await answer();
    expect(limiter.peek('authfail:addr:192.0.2.1', 3, 60)).toMatchObject({ allowed: false, remaining: 0 });
    // A hit's answer tells the count too: a peek after it asks nothing more.
    limiter.hit('authfail:addr:192.0.2.2', 3, 60);
    limiter.peek('authfail:addr:192.0.2.2', 3, 60);
    expect(distant.asked()).toBe(1);
  });

  it('a failed reconciliation is reported, leaves the decision made, and a failed peek is asked again', async () => {
    const clock = manualClock();
    const deferred: Array<Promise<unknown>> = [];
    const failures: string[] = [];
    let calls = 0;
    const broken: RateLimiter = {
      hit: () => (calls++, Promise.reject(new Error('object unreachable'))),
      peek: () => (calls++, Promise.reject(new Error('object unreachable'))),
    };
    const limiter = new LocalFirstRateLimiter(broken, clock, {
      defer: (t) => void deferred.push(t),
      failed: (b, e) => void failures.push(`${b}: ${(e as Error).message}`),
    });
    expect(allowed(limiter.hit('project:d', 2, 60))).toBe(true);
    limiter.peek('authfail:addr:x', 2, 60);
    await Promise.all(deferred);
    expect(failures).toEqual(['project:d: object unreachable', 'authfail:addr:x: object unreachable']);
    // The unacknowledged hit still counts here; a peek of either bucket asks again.
    limiter.peek('authfail:addr:x', 2, 60);
    expect(calls).toBe(3);
    limiter.peek('project:d', 2, 60);
    expect(calls).toBe(4);
    expect(limiter.hit('project:d', 2, 60)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('starts each window from nothing known', async () => {
    const { limiter, clock, answer } = setup();
    expect(allowed(limiter.hit('project:e', 1, 60))).toBe(true);
    expect(allowed(limiter.hit('project:e', 1, 60))).toBe(false);
    await answer();
    clock.at(Date.parse('2026-11-28T10:01:00Z'));
    expect(allowed(limiter.hit('project:e', 1, 60))).toBe(true);
  });
});
