/**
 * What sharing rate limits through Redis (`REDIS_URL`) costs, as a ratio against the per-process
 * limiter measured in the same run: the limiter alone (sequential and 64 in flight), and the whole
 * gateway over HTTP (two `src/node.ts` processes, one with `REDIS_URL`, driven alike by autocannon
 * on a detail route). Starts its own redis-server (Debian package) on a free port.
 * Run: npx tsx bench/redis-limiter.ts. Prints numbers and ratios; asserts nothing.
 */
import autocannon from 'autocannon';
import { systemClock } from '../src/services/clock';
import { MemoryRateLimiter } from '../src/services/rate-limit/memory-rate-limiter';
import { redisWindows } from '../src/services/rate-limit/redis-connection';
import { RedisRateLimiter } from '../src/services/rate-limit/redis-rate-limiter';
import type { RateLimiter } from '../src/services/rate-limit/rate-limiter';
import { startGatewayProcess } from '../tools/processes';
import { startRedisServer } from '../test/support/redis-server';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const redis = await startRedisServer();

async function perHit(limiter: RateLimiter, runs: number, inFlight: number): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < runs) await limiter.hit(`bench:${next++ % 500}`, 1_000_000_000, 60);
    }),
  );
  return ((performance.now() - started) / runs) * 1000;
}

try {
  const memory = new MemoryRateLimiter(systemClock);
  const { windows, client } = await redisWindows(redis.url, () => {});
  await new Promise((resolve) => client.once('ready', resolve));
  const shared = new RedisRateLimiter(windows, new MemoryRateLimiter(systemClock), systemClock, () => {});
  await perHit(shared, 2000, 1);
  for (const inFlight of [1, 64]) {
    const m = await perHit(memory, 20_000, inFlight);
    const r = await perHit(shared, 20_000, inFlight);
    console.log(
      `limiter, ${String(inFlight).padStart(2)} in flight: memory ${m.toFixed(1)} µs/hit, redis ${r.toFixed(1)} µs/hit, ratio ${(r / m).toFixed(1)}x`,
    );
  }
  client.disconnect();

  const env = { RATE_LIMIT_PER_MINUTE: '1000000000' };
  const local = await startGatewayProcess(env);
  const viaRedis = await startGatewayProcess({ ...env, REDIS_URL: redis.url });
  const drive = async (origin: string) => {
    const result = await autocannon({
      url: `${origin}/v2/species/ABBA`,
      connections: 10,
      duration: SECONDS,
      headers: { Authorization: 'ApiKey demo-project-key' },
    });
    return { rps: result.requests.average, p99: result.latency.p99, non2xx: result.non2xx };
  };
  await drive(local.origin);
  await drive(viaRedis.origin);
  const rounds = [];
  for (let i = 0; i < 2; i++) rounds.push({ local: await drive(local.origin), redis: await drive(viaRedis.origin) });
  for (const [i, r] of rounds.entries()) {
    console.log(
      `HTTP round ${i + 1}: per process ${r.local.rps.toFixed(0)} req/s (p99 ${r.local.p99} ms), REDIS_URL ${r.redis.rps.toFixed(0)} req/s (p99 ${r.redis.p99} ms), throughput ratio ${(r.redis.rps / r.local.rps).toFixed(2)}, non-2xx ${r.local.non2xx + r.redis.non2xx}`,
    );
  }
  await Promise.all([local.stop(), viaRedis.stop()]);
} finally {
  await redis.stop();
}
