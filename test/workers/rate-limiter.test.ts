import { abortAllDurableObjects, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { WindowState } from '../../src/services/rate-limit/fixed-window';
import { edgeRateLimiter } from '../../src/worker/gateway';

const limiter = () => edgeRateLimiter(env);
const objectOf = (bucket: string) => env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(bucket));

describe('DurableObjectRateLimiter over the RATE_LIMITER namespace', () => {
  it('counts a bucket down to the limit, then refuses with the seconds to reset', async () => {
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await limiter().hit('project:countdown', 3, 60));
    expect(decisions.slice(0, 3)).toEqual([
      { allowed: true, limit: 3, remaining: 2, resetSeconds: 60 },
      { allowed: true, limit: 3, remaining: 1, resetSeconds: 60 },
      { allowed: true, limit: 3, remaining: 0, resetSeconds: 60 },
    ]);
    expect(decisions[3]).toMatchObject({ allowed: false, limit: 3, remaining: 0 });
    expect(decisions[3]!.resetSeconds).toBeGreaterThanOrEqual(59);
  });

  it('keeps buckets apart: one object per bucket name', async () => {
    await limiter().hit('project:a', 1, 60);
    expect(await limiter().hit('project:a', 1, 60)).toMatchObject({ allowed: false });
    expect(await limiter().hit('project:b', 1, 60)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('is exact under concurrent requests: exactly the limit is allowed, each remaining count once', async () => {
    const decisions = await Promise.all(Array.from({ length: 50 }, () => limiter().hit('subject:burst', 20, 60)));
    const allowed = decisions.filter((d) => d.allowed);
    expect(allowed).toHaveLength(20);
    expect(allowed.map((d) => d.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('starts a new window once the stored one has ended', async () => {
    await limiter().hit('project:window', 2, 60);
    await limiter().hit('project:window', 2, 60);
    expect(await limiter().hit('project:window', 2, 60)).toMatchObject({ allowed: false });
    await runInDurableObject(objectOf('project:window'), (_instance, state) => {
      const window = state.storage.kv.get<WindowState>('window')!;
      state.storage.kv.put('window', { ...window, start: window.start - 60_000 });
    });
    expect(await limiter().hit('project:window', 2, 60)).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 60 });
  });

  it('keeps the count when the object is evicted mid-window (it is in storage, not memory)', async () => {
    await limiter().hit('project:evicted', 5, 60);
    await limiter().hit('project:evicted', 5, 60);
    await abortAllDurableObjects();
    expect(await limiter().hit('project:evicted', 5, 60)).toMatchObject({ allowed: true, remaining: 2 });
  });
});
