import type { Redis } from 'ioredis';
import type { LogLine } from '../log';
import type { Clock } from '../clock';
import { MemoryRateLimiter } from './memory-rate-limiter';
import { RedisRateLimiter, type RedisWindows } from './redis-rate-limiter';

/** The longest a request waits for Redis before it is counted locally (README, "More than one instance"). */
export const REDIS_TIMEOUT_MS = 250;

/** Where each bucket's window lives: one hash per bucket, `start` (epoch ms) and `count`, expiring with the window. */
const KEY_PREFIX = 'gateway:ratelimit:';

// Both scripts read Redis' clock (TIME) and align the window to it, as fixed-window.ts does.
const NOW_AND_COUNT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local length = tonumber(ARGV[#ARGV])
local start = now - (now % length)
local state = redis.call('HMGET', KEYS[1], 'start', 'count')
local count = 0
if tonumber(state[1]) == start then count = tonumber(state[2]) end
`;

/** Counts the request only while the window has room: a refused request uses up nothing. */
const HIT = `${NOW_AND_COUNT}
if count < tonumber(ARGV[1]) then
  redis.call('HSET', KEYS[1], 'start', start, 'count', count + 1)
  redis.call('PEXPIREAT', KEYS[1], start + length)
end
return {count, now}`;

const PEEK = `${NOW_AND_COUNT}
return {count, now}`;

interface WindowCommands {
  rateLimitHit(key: string, limit: number, windowMs: number): Promise<[number, number]>;
  rateLimitPeek(key: string, windowMs: number): Promise<[number, number]>;
}

/**
 * A Redis client for rate limiting: every command answers or fails within REDIS_TIMEOUT_MS, and
 * while the connection is down commands fail at once instead of queueing (the limiter then counts
 * locally); it reconnects in the background. Connection errors go to the limiter's warning, not to
 * ioredis' default stack trace on the console.
 */
export async function redisWindows(url: string, onError: (err: Error) => void): Promise<{ windows: RedisWindows; client: Redis }> {
  // Loaded only where REDIS_URL is set: the client and what it pulls in cost a process without it
  // about 14 MB of memory and part of its start-up.
  const { Redis } = await import('ioredis');
  const client = new Redis(url, {
    commandTimeout: REDIS_TIMEOUT_MS,
    connectTimeout: 2000,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // Commands issued in the same tick share one write: fewer system calls under load.
    enableAutoPipelining: true,
    retryStrategy: (times) => Math.min(times * 100, 2000),
  });
  client.on('error', onError);
  client.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT });
  client.defineCommand('rateLimitPeek', { numberOfKeys: 1, lua: PEEK });
  const commands = client as unknown as WindowCommands;
  return {
    client,
    windows: {
      hit: async (bucket, limit, windowMs) => {
        const [count, now] = await commands.rateLimitHit(KEY_PREFIX + bucket, limit, windowMs);
        return { count, now };
      },
      peek: async (bucket, windowMs) => {
        const [count, now] = await commands.rateLimitPeek(KEY_PREFIX + bucket, windowMs);
        return { count, now };
      },
    },
  };
}

/** The rate limiter of a Node entry with `REDIS_URL`: shared through Redis, per process while Redis is away. */
export async function redisRateLimiter(url: string, clock: Clock, log: (line: LogLine) => void): Promise<RedisRateLimiter> {
  // Connection errors repeat on every reconnection attempt; the limiter warns when a request is affected.
  const { windows } = await redisWindows(url, () => {});
  return new RedisRateLimiter(windows, new MemoryRateLimiter(clock), clock, log);
}
