import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { LogLine } from '../../../../src/services/log';
import { ManualClock, systemClock } from '../../../../src/services/clock';
import { MemoryRateLimiter } from '../../../../src/services/rate-limit/memory-rate-limiter';
import { REDIS_TIMEOUT_MS, redisWindows } from '../../../../src/services/rate-limit/redis-connection';
import { RedisRateLimiter, type RedisWindows } from '../../../../src/services/rate-limit/redis-rate-limiter';
import type { RateLimitDecision } from '../../../../src/services/rate-limit/rate-limiter';
import { startGatewayProcess, type GatewayProcess } from '../../../../tools/processes';
import { REDIS_SERVER_INSTALLED, startRedisServer, type RedisServer } from '../../../support/redis-server';
import { describeWithRedis } from '../../../support/needs-binary';

let redis: RedisServer;
const clients: Redis[] = [];
const gateways: GatewayProcess[] = [];
beforeAll(async () => {
  if (REDIS_SERVER_INSTALLED) redis = await startRedisServer();
});
afterAll(async () => {
  clients.forEach((c) => {
    c.disconnect();
  });
  await Promise.all(gateways.map((g) => g.stop()));
  await redis?.stop();
});

/** A limiter on its own connection, with the Redis time of every answer and the connection's errors recorded. */
async function limiter(options: { local?: MemoryRateLimiter } = {}) {
  const connectionErrors: Error[] = [];
  const { windows, client } = await redisWindows(redis.url, (err) => connectionErrors.push(err));
  clients.push(client);
  await new Promise<void>((resolve) => (client.status === 'ready' ? resolve() : client.once('ready', () => resolve())));
  const times: number[] = [];
  const recording: RedisWindows = {
    hit: async (...args) => windows.hit(...args).then((r) => (times.push(r.now), r)),
    peek: async (...args) => windows.peek(...args).then((r) => (times.push(r.now), r)),
  };
  const logs: LogLine[] = [];
  const local = options.local ?? new MemoryRateLimiter(systemClock);
  return { limiter: new RedisRateLimiter(recording, local, systemClock, (l) => logs.push(l)), times, logs, client, connectionErrors };
}

/** Seconds left in the current minute by Redis' clock; waits for the next minute when fewer than `need` are left. */
async function roomInMinute(client: Redis, need: number): Promise<void> {
  const [seconds] = await client.time();
  const left = 60 - (Number(seconds) % 60);
  if (left < need) await new Promise((resolve) => setTimeout(resolve, left * 1000 + 50));
}

describeWithRedis('RedisRateLimiter on a real redis-server', () => {
  it('decides exactly as the in-memory fixed window at the same instants: counts, refusals, remaining, reset', async () => {
    const { limiter: shared, times } = await limiter();
    const clock = new ManualClock(0);
    const reference = new MemoryRateLimiter(clock);
    // A 1 s window, so the walk crosses window boundaries; refused calls in between.
    const steps: Array<['hit' | 'peek', number]> = Array.from({ length: 40 }, (_, i) => [i % 5 === 4 ? 'peek' : 'hit', i % 3 === 2 ? 30 : 0]);
    let refused = 0;
    for (const [call, pause] of steps) {
      const got: RateLimitDecision = await shared[call]('exact', 4, 1);
      clock.set(times.at(-1)!);
      expect(got, `${call} at ${times.at(-1)}`).toEqual(await reference[call]('exact', 4, 1));
      if (!got.allowed) refused++;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
    expect(refused, 'the walk meets full windows').toBeGreaterThan(0);
  });

  it('does not count refused requests, and peek counts nothing', async () => {
    const { limiter: shared, client } = await limiter();
    await roomInMinute(client, 5);
    for (let i = 0; i < 5; i++) expect((await shared.peek('peeked', 3, 60)).remaining).toBe(3);
    const decisions = [];
    for (let i = 0; i < 6; i++) decisions.push(await shared.hit('peeked', 3, 60));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false, false, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0, 0, 0]);
    expect(await client.hget('gateway:ratelimit:peeked', 'count'), 'refused hits left the count alone').toBe('3');
    expect(await shared.peek('peeked', 3, 60)).toMatchObject({ allowed: false, remaining: 0 });
    expect(await shared.peek('peeked', 5, 60), 'peek under a higher limit sees the same count').toMatchObject({ allowed: true, remaining: 2 });
  });

  it('lets exactly `limit` of many concurrent hits from two connections through', async () => {
    const [a, b] = [await limiter(), await limiter()];
    await roomInMinute(a.client, 5);
    const all = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).limiter.hit('burst', 25, 60)));
    expect(all.filter((d) => d.allowed)).toHaveLength(25);
    expect(
      all
        .filter((d) => d.allowed)
        .map((d) => d.remaining)
        .sort((x, y) => x - y),
    ).toEqual(Array.from({ length: 25 }, (_, i) => i));
  });

  it('counts locally, within the command timeout and with one warning, while Redis hangs, and shares again after', async () => {
    const local = new MemoryRateLimiter(systemClock);
    const { limiter: shared, logs, client } = await limiter({ local });
    await roomInMinute(client, 5);
    expect((await shared.hit('hang', 2, 60)).remaining).toBe(1);
    redis.pause();
    try {
      const bound = new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), REDIS_TIMEOUT_MS * 8));
      const first = await Promise.race([shared.hit('hang', 2, 60), bound]);
      // The local limiter had not seen this bucket: its own window, its own count.
      expect(first).toMatchObject({ allowed: true, remaining: 1 });
      expect(await shared.hit('hang', 2, 60)).toMatchObject({ allowed: true, remaining: 0 });
      expect(await shared.hit('hang', 2, 60)).toMatchObject({ allowed: false, remaining: 0 });
      expect((await local.peek('hang', 2, 60)).remaining, 'the local limiter did the counting').toBe(0);
    } finally {
      redis.resume();
    }
    const warnings = logs.filter((l) => l.level === 'warn');
    expect(warnings).toEqual([expect.objectContaining({ message: expect.stringMatching(/counted per process/), error: expect.stringMatching(/timed out/i) })]);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    // Redis' count: 1 from before, plus the hit that timed out, which the server ran when it woke
    // (a request may be counted twice during an outage, never lost), plus this one.
    expect((await shared.hit('hang', 5, 60)).remaining, 'Redis holds its own count again').toBe(2);
    expect(logs.at(-1)).toMatchObject({ level: 'info', message: expect.stringMatching(/answers again/) });
  });
});

describeWithRedis('RedisRateLimiter when redis-server is gone', () => {
  it('counts locally at once while nothing listens, and shares again once a server is back', async () => {
    const { limiter: shared, logs, client, connectionErrors } = await limiter();
    await roomInMinute(client, 5);
    await redis.kill();
    try {
      const decisions = [];
      for (let i = 0; i < 3; i++) decisions.push(await shared.hit('gone', 2, 60));
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, false]);
      // Failed at once: while disconnected the client queues nothing to wait for a connection.
      expect(logs.filter((l) => l.level === 'warn')).toEqual([expect.objectContaining({ error: expect.stringMatching(/enableOfflineQueue/) })]);
      // The failed reconnection attempts reach the limiter's handler (not ioredis' stack trace on the
      // console), the first within a second, paced (a tenth of a second more each time), not in a busy loop.
      await vi.waitFor(() => expect(connectionErrors.map((e) => e.message).join('\n')).toMatch(/ECONNREFUSED/), { timeout: 1000, interval: 20 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(connectionErrors.length, connectionErrors.map((e) => e.message).join('\n')).toBeLessThanOrEqual(5);
    } finally {
      await redis.start();
    }
    await new Promise<void>((resolve) => (client.status === 'ready' ? resolve() : client.once('ready', () => resolve())));
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await shared.hit('gone', 2, 60), 'a fresh server: a fresh count').toMatchObject({ allowed: true, remaining: 1 });
    expect(logs.at(-1)).toMatchObject({ level: 'info' });
  });
});

describeWithRedis('two real Node gateways with REDIS_URL', () => {
  it('share one budget exactly (6 on one and 4 on the other, the 11th refused on both, headers agreeing) and one failure throttle', async () => {
    const env = { REDIS_URL: redis.url, RATE_LIMIT_PER_MINUTE: '10', AUTH_FAILURES_PER_MINUTE: '3' };
    const [a, b] = await Promise.all([startGatewayProcess(env), startGatewayProcess(env)]);
    gateways.push(a, b);
    const { client } = await limiter();
    await roomInMinute(client, 15);
    const get = (g: GatewayProcess) => fetch(`${g.origin}/v2/species/ABBA`, { headers: { Authorization: 'ApiKey demo-project-key' } });
    const order = [a, a, a, b, a, b, a, b, a, b];
    const answers = [];
    for (const g of order) answers.push(await get(g));
    expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(answers.map((r) => r.headers.get('ratelimit')!.match(/r=(\d+)/)![1])).toEqual(['9', '8', '7', '6', '5', '4', '3', '2', '1', '0']);
    const [refusedA, refusedB] = [await get(a), await get(b)];
    expect([refusedA.status, refusedB.status]).toEqual([429, 429]);
    const resets = [refusedA, refusedB].map((r) => Number(r.headers.get('retry-after')));
    expect(Math.abs(resets[0]! - resets[1]!), `Retry-After ${resets}`).toBeLessThanOrEqual(1);
    expect(refusedB.headers.get('ratelimit')).toBe(`"default";r=0;t=${resets[1]}`);
    expect(resets[0]).toBeGreaterThan(0);

    // The failure throttle counts in the same Redis: 2 failures on one and 1 on the other fill the
    // address's budget of 3, and the next attempt is refused on either before its secret is checked.
    const wrong = (g: GatewayProcess) => fetch(`${g.origin}/v2/species/ABBA`, { headers: { Authorization: 'ApiKey not-a-key' } });
    expect([(await wrong(a)).status, (await wrong(b)).status, (await wrong(a)).status]).toEqual([401, 401, 401]);
    const throttled = await wrong(b);
    expect(throttled.status).toBe(429);
    expect(((await throttled.json()) as { code: string }).code).toBe('svc/tooManyRequests');
    expect((await wrong(a)).status).toBe(429);
    await client.del('gateway:ratelimit:authfail:addr:127.0.0.1');

    // Redis hangs: each gateway answers from its own count, promptly, and says so once.
    redis.pause();
    try {
      const during = await get(a);
      expect(during.status).toBe(200);
      expect(during.headers.get('ratelimit')).toMatch(/r=9;/);
    } finally {
      redis.resume();
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(a.lines.filter((l) => l.includes('Redis did not answer'))).toHaveLength(1);
    expect(a.lines.join('\n')).not.toMatch(/at .*\.js:\d+/);
  });
});
