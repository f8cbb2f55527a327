/**
 * Two gateways sharing one real Redis (`REDIS_URL`), one whose clock runs into Redis' next minute
 * and one whose clock is still in Redis' previous minute: the shared rate limit and the shared
 * failure throttle hold exactly as if both clocks were right, because every window, count and
 * reset is Redis' own (README, "More than one instance"). Needs `redis-server`; skipped, saying
 * so, where it is missing.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Clock } from '../../../../src/services/clock';
import { MemoryRateLimiter } from '../../../../src/services/rate-limit/memory-rate-limiter';
import { redisWindows } from '../../../../src/services/rate-limit/redis-connection';
import { RedisRateLimiter } from '../../../../src/services/rate-limit/redis-rate-limiter';
import { DEMO, json, testApp, type TestApp } from '../../../support/harness';
import { startRedisServer, type RedisServer } from '../../../support/redis-server';
import { describeWithRedis } from '../../../support/needs-binary';

let redis: RedisServer;
const clients: Redis[] = [];
afterAll(async () => {
  for (const c of clients) c.disconnect();
  await redis?.stop();
});

const ready = (client: Redis) => new Promise<void>((resolve) => (client.status === 'ready' ? resolve() : client.once('ready', () => resolve())));

/** Redis' own time, in epoch milliseconds. */
async function redisNow(client: Redis): Promise<number> {
  const [seconds, micros] = await client.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/** A gateway in process whose clock is `offsetMs` off, limiting through Redis as the Node entry wires it (`redisRateLimiter`). */
async function gatewayOffBy(offsetMs: number): Promise<TestApp> {
  const clock: Clock = { now: () => Date.now() + offsetMs };
  const { windows, client } = await redisWindows(redis.url, () => {});
  clients.push(client);
  await ready(client);
  const rateLimiter = new RedisRateLimiter(windows, new MemoryRateLimiter(clock), clock, () => {});
  return testApp({ env: { RATE_LIMIT_PER_MINUTE: '4', AUTH_FAILURES_PER_MINUTE: '3', TRUST_PROXY: 'true' }, services: { rateLimiter } });
}

describeWithRedis('gateways whose clocks are off against Redis', () => {
  beforeAll(async () => {
    redis = await startRedisServer();
  });

  it('share one budget and one failure throttle exactly, with Redis’ reset, one clock a minute fast and one slow', async () => {
    const { client } = await redisWindows(redis.url, () => {});
    clients.push(client);
    await ready(client);
    // At least 20 s left in Redis' minute, so the whole walk stays inside one of its windows.
    const left = 60_000 - ((await redisNow(client)) % 60_000);
    if (left < 20_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
    const now = await redisNow(client);
    const into = now % 60_000;
    // Fast: 10 s into Redis' next minute. Slow: 30 s before Redis' minute began.
    const [fast, slow] = [await gatewayOffBy(60_000 - into + 10_000), await gatewayOffBy(-into - 30_000)];

    const remaining = (res: Response) => res.headers.get('RateLimit')?.match(/r=(\d+)/)?.[1];
    const order = [fast, slow, fast, slow];
    const answers: Response[] = [];
    for (const g of order) answers.push(await g.get('/v2/species/ABBA'));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(answers.map(remaining), 'one count, whichever clock').toEqual(['3', '2', '1', '0']);

    for (const g of [fast, slow, fast]) {
      const refused = await g.get('/v2/species/ABBA');
      const body = await json(refused);
      expect(refused.status, JSON.stringify(body)).toBe(429);
      const redisLeft = Math.ceil((60_000 - ((await redisNow(client)) % 60_000)) / 1000);
      const retryAfter = Number(refused.headers.get('Retry-After'));
      expect(Math.abs(retryAfter - redisLeft), `Retry-After ${retryAfter}, Redis' minute has ${redisLeft} s left`).toBeLessThanOrEqual(1);
    }

    // The failure throttle: three wrong keys from one address over both gateways fill its budget.
    const from = { 'X-Forwarded-For': '192.0.2.77' };
    for (const g of [fast, slow, fast]) expect((await g.get('/v2/species', { ...from, Authorization: 'ApiKey wrong' })).status).toBe(401);
    for (const [g, key] of [
      [slow, 'ApiKey wrong'],
      [fast, 'ApiKey wrong'],
      [fast, DEMO.speciesOnlyKey],
      [slow, DEMO.speciesOnlyKey],
    ] as const) {
      const res = await g.get('/v2/species', { ...from, Authorization: key });
      expect(res.status, `${key} through the ${g === fast ? 'fast' : 'slow'} gateway`).toBe(429);
      expect((await json(res)).code).toBe('svc/tooManyRequests');
    }
    expect(Math.floor((await redisNow(client)) / 60_000), 'the walk stayed inside one of Redis’ minutes').toBe(Math.floor(now / 60_000));
  });
});
