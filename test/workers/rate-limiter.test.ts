import { abortAllDurableObjects, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/core/crypto';
import type { WindowState } from '../../src/services/rate-limit/fixed-window';
import { buildGateway, edgeRateLimiter } from '../../src/worker/gateway';
import { json } from '../suites/client';
import { gatewayClient } from './client';

const limiter = () => edgeRateLimiter(env)!;

/** Windows turn at whole minutes: a test that counts within one window starts well inside it. */
async function awayFromMinuteEdge(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 3_000) await new Promise((resolve) => setTimeout(resolve, left + 100));
}
const objectOf = (bucket: string) => env.RATE_LIMITER!.get(env.RATE_LIMITER!.idFromName(bucket));

describe('DurableObjectRateLimiter over the RATE_LIMITER namespace', () => {
  it('counts a bucket down to the limit, then refuses with the seconds to reset', async () => {
    await awayFromMinuteEdge();
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await limiter().hit('project:countdown', 3, 60));
    expect(decisions.map(({ allowed, limit, remaining }) => ({ allowed, limit, remaining }))).toEqual([
      { allowed: true, limit: 3, remaining: 2 },
      { allowed: true, limit: 3, remaining: 1 },
      { allowed: true, limit: 3, remaining: 0 },
      { allowed: false, limit: 3, remaining: 0 },
    ]);
    // Windows are aligned to whole minutes, so the reset is what is left of this one.
    const left = 60 - Math.floor((Date.now() % 60_000) / 1000);
    for (const d of decisions) expect(Math.abs(d.resetSeconds - left)).toBeLessThanOrEqual(1);
  });

  it('keeps buckets apart: one object per bucket name', async () => {
    await awayFromMinuteEdge();
    await limiter().hit('project:a', 1, 60);
    expect(await limiter().hit('project:a', 1, 60)).toMatchObject({ allowed: false });
    expect(await limiter().hit('project:b', 1, 60)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('is exact under concurrent requests: exactly the limit is allowed, each remaining count once', async () => {
    await awayFromMinuteEdge();
    const decisions = await Promise.all(Array.from({ length: 50 }, () => limiter().hit('subject:burst', 20, 60)));
    const allowed = decisions.filter((d) => d.allowed);
    expect(allowed).toHaveLength(20);
    expect(allowed.map((d) => d.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('starts a new window once the stored one has ended', async () => {
    await awayFromMinuteEdge();
    await limiter().hit('project:window', 2, 60);
    await limiter().hit('project:window', 2, 60);
    expect(await limiter().hit('project:window', 2, 60)).toMatchObject({ allowed: false });
    await runInDurableObject(objectOf('project:window'), (_instance, state) => {
      const window = state.storage.kv.get<WindowState>('window')!;
      state.storage.kv.put('window', { ...window, start: window.start - 60_000 });
    });
    expect(await limiter().hit('project:window', 2, 60)).toMatchObject({ allowed: true, limit: 2, remaining: 1 });
  });

  it('keeps the count when the object is evicted mid-window (it is in storage, not memory)', async () => {
    await awayFromMinuteEdge();
    await limiter().hit('project:evicted', 5, 60);
    await limiter().hit('project:evicted', 5, 60);
    await abortAllDurableObjects();
    expect(await limiter().hit('project:evicted', 5, 60)).toMatchObject({ allowed: true, remaining: 2 });
  });
});

describe('the rate-limit policy on the Durable Object limiter', () => {
  it('counts one project across gateways (isolates): RateLimit headers count down, then 429 with Retry-After', async () => {
    await env.CREDENTIALS!.put(`apikey:${await sha256Hex('metered-key')}`, JSON.stringify({ id: 'metered', resources: '*' }));
    // Two gateways stand for two isolates, possibly in two locations: the object is their one count.
    await awayFromMinuteEdge();
    const isolates = [0, 1].map(() => gatewayClient(buildGateway({ ...env, RATE_LIMIT_PER_MINUTE: '3' })));
    const seen = [];
    for (let i = 0; i < 4; i++) seen.push(await isolates[i % 2]!.get('/v2/species', { Authorization: 'ApiKey metered-key' }));
    expect(seen.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(seen.slice(0, 3).map((r) => r.headers.get('RateLimit')?.replace(/;t=\d+$/, ''))).toEqual(['"default";r=2', '"default";r=1', '"default";r=0']);
    expect(seen[0]!.headers.get('RateLimit-Policy')).toBe('"default";q=3;w=60');
    const refused = seen[3]!;
    const body = await json(refused);
    expect(body.code, JSON.stringify(body)).toBe('svc/rateLimited');
    const retryAfter = Number(refused.headers.get('Retry-After'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get('RateLimit')).toBe(`"default";r=0;t=${retryAfter}`);
  });
});
