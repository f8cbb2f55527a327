/**
 * The Redis limiter while Redis does not answer (README, "More than one instance"), with a Redis
 * in memory that fails on demand and a manual clock, so the bounds are exact: requests are counted
 * by the per-process limiter, Redis is tried again one second after it failed (not on every
 * request), the warning is repeated at most once a minute, and one line says when Redis is back.
 * The same limiter against a real `redis-server` is in `redis-rate-limiter.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import type { LogLine } from '../../../../src/services/log';
import { ManualClock } from '../../../../src/services/clock';
import { windowStart } from '../../../../src/services/rate-limit/fixed-window';
import { MemoryRateLimiter } from '../../../../src/services/rate-limit/memory-rate-limiter';
import { RedisRateLimiter, type RedisWindows } from '../../../../src/services/rate-limit/redis-rate-limiter';

const T0 = Date.parse('2026-11-21T12:00:10Z');

/** Redis' windows in memory, on the same clock; while `down`, every command fails as a timed-out one does. */
class FlakyWindows implements RedisWindows {
  down = false;
  calls = 0;
  private readonly counts = new Map<string, { start: number; count: number }>();
  constructor(private readonly clock: ManualClock) {}

  async hit(bucket: string, limit: number, windowMs: number) {
    const { count, now } = await this.peek(bucket, windowMs);
    if (count < limit) this.counts.set(bucket, { start: windowStart(now, windowMs / 1000), count: count + 1 });
    return { count, now };
  }

  async peek(bucket: string, windowMs: number) {
    this.calls++;
    if (this.down) throw new Error('Command timed out');
    const now = this.clock.now();
    const held = this.counts.get(bucket);
    return { count: held?.start === windowStart(now, windowMs / 1000) ? held.count : 0, now };
  }
}

function fallingBack() {
  const clock = new ManualClock(T0);
  const windows = new FlakyWindows(clock);
  const logs: LogLine[] = [];
  const limiter = new RedisRateLimiter(windows, new MemoryRateLimiter(clock), clock, (line) => logs.push(line));
  const warnings = () => logs.filter((l) => l.level === 'warn').length;
  const backAgain = () => logs.filter((l) => l.level === 'info').length;
  return { clock, windows, logs, limiter, warnings, backAgain };
}

describe('RedisRateLimiter while Redis does not answer', () => {
  it('counts locally, asks Redis again only once a second has passed since it failed, and shares again when it answers', async () => {
    const { clock, windows, limiter } = fallingBack();
    expect(await limiter.hit('p', 3, 60)).toMatchObject({ allowed: true, remaining: 2 });
    windows.down = true;
    // The local limiter has not seen the bucket: its own count, from its own window.
    expect(await limiter.hit('p', 3, 60)).toMatchObject({ allowed: true, remaining: 2 });
    const tried = windows.calls;
    clock.advance(999);
    expect(await limiter.hit('p', 3, 60)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await limiter.peek('p', 3, 60), 'peek asks the local limiter too').toMatchObject({ allowed: true, remaining: 1 });
    expect(windows.calls, 'Redis not asked within the second').toBe(tried);
    clock.advance(1);
    expect(await limiter.hit('p', 3, 60)).toMatchObject({ allowed: true, remaining: 0 });
    expect(windows.calls, 'Redis asked again once the second has passed').toBe(tried + 1);
    clock.advance(1_000);
    windows.down = false;
    // Redis' own count: the one hit it saw before it failed, and this one.
    expect(await limiter.hit('p', 3, 60)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await limiter.peek('p', 3, 60)).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('warns when Redis fails and again at most once a minute while it stays away, and says once that it is back', async () => {
    const { clock, windows, logs, limiter, warnings, backAgain } = fallingBack();
    await limiter.hit('p', 100, 60);
    expect(logs, 'nothing to say while Redis answers').toEqual([]);
    windows.down = true;
    await limiter.hit('p', 100, 60);
    expect(logs).toEqual([{ level: 'warn', message: 'Redis did not answer: rate limits are counted per process until it does', error: 'Command timed out' }]);
    for (let s = 1; s < 60; s++) {
      clock.set(T0 + s * 1_000);
      await limiter.hit('p', 100, 60);
    }
    clock.set(T0 + 59_999);
    await limiter.hit('p', 100, 60);
    expect(warnings(), 'one warning within the minute').toBe(1);
    clock.set(T0 + 60_000);
    await limiter.hit('p', 100, 60);
    expect(warnings(), 'repeated a minute after the first').toBe(2);
    clock.set(T0 + 61_000);
    await limiter.hit('p', 100, 60);
    expect(warnings(), 'the minute counts from the repeated warning').toBe(2);

    clock.set(T0 + 62_000);
    windows.down = false;
    await limiter.hit('p', 100, 60);
    await limiter.peek('p', 100, 60);
    await limiter.hit('p', 100, 60);
    expect(backAgain()).toBe(1);
    expect(logs.at(-1)).toEqual({ level: 'info', message: 'Redis answers again: rate limits are shared between instances' });

    // Away again: a fresh warning at once, not a minute after the last one.
    clock.set(T0 + 63_000);
    windows.down = true;
    await limiter.hit('p', 100, 60);
    expect(warnings()).toBe(3);
  });
});
