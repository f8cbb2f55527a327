import type { LogLine } from '../log';
import type { Clock } from '../clock';
import type { Decided, RateLimitDecision, RateLimiter } from './rate-limiter';
import { countHit, peekWindow, windowStart } from './fixed-window';

/**
 * A bucket's window as Redis holds it: the count before this call and Redis' own time (epoch ms).
 * `hit` counts the request only if the window had room, atomically (redis-connection.ts).
 */
export interface RedisWindows {
  hit(bucket: string, limit: number, windowMs: number): Promise<{ count: number; now: number }>;
  peek(bucket: string, windowMs: number): Promise<{ count: number; now: number }>;
}

/** After Redis failed, requests skip it this long, so a hung server costs one bounded wait per second, not one per request. */
const RETRY_AFTER_MS = 1000;
/** While Redis stays unreachable, the warning is repeated at most this often. */
const WARN_EVERY_MS = 60_000;

/**
 * Rate limits shared by every Node instance on one Redis (`REDIS_URL`): the same fixed-window rule
 * as the in-memory limiter (`fixed-window.ts`), with the window, the count and the reset all taken
 * from Redis, whose clock every instance shares, so instances agree to the millisecond whatever
 * their own clocks say.
 *
 * When Redis does not answer within the command timeout, the request is counted by a per-process
 * limiter instead (fail to local, not open and not closed): limits and the failure throttle stay
 * enforced on each instance, only their sharing is lost until Redis answers again. One warning
 * line says so, repeated at most once a minute, and one line says when Redis is back.
 */
export class RedisRateLimiter implements RateLimiter {
  private skipUntil = 0;
  private lastWarning: number | undefined;

  constructor(
    private readonly windows: RedisWindows,
    private readonly local: RateLimiter,
    private readonly clock: Clock,
    private readonly log: (line: LogLine) => void,
  ) {}

  hit(bucket: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    return this.shared(
      async () => {
        const { count, now } = await this.windows.hit(bucket, limit, windowSeconds * 1000);
        return countHit({ start: windowStart(now, windowSeconds), count }, now, limit, windowSeconds).decision;
      },
      () => this.local.hit(bucket, limit, windowSeconds),
    );
  }

  peek(bucket: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    return this.shared(
      async () => {
        const { count, now } = await this.windows.peek(bucket, windowSeconds * 1000);
        return peekWindow({ start: windowStart(now, windowSeconds), count }, now, limit, windowSeconds);
      },
      () => this.local.peek(bucket, limit, windowSeconds),
    );
  }

  private async shared(viaRedis: () => Promise<RateLimitDecision>, locally: () => Decided): Promise<RateLimitDecision> {
    if (this.clock.now() < this.skipUntil) return locally();
    try {
      const decision = await viaRedis();
      if (this.lastWarning !== undefined) {
        this.lastWarning = undefined;
        this.log({ level: 'info', message: 'Redis answers again: rate limits are shared between instances' });
      }
      return decision;
    } catch (err) {
      const now = this.clock.now();
      this.skipUntil = now + RETRY_AFTER_MS;
      if (this.lastWarning === undefined || now - this.lastWarning >= WARN_EVERY_MS) {
        this.lastWarning = now;
        this.log({ level: 'warn', message: 'Redis did not answer: rate limits are counted per process until it does', error: (err as Error).message });
      }
      return locally();
    }
  }
}
