import { LRUCache } from 'lru-cache';
import type { Clock } from '../clock';
import { entryBytes } from '../cache/entry-size';
import type { RateLimitDecision, RateLimiter } from './rate-limiter';
import { countHit, peekWindow, windowStart, type WindowState } from './fixed-window';
import { RATE_LIMIT_BYTES } from './memory-rate-limiter';

/** What is known of a window: its start, two counts and a flag. */
const KNOWN_BYTES = 48;

/** What this instance knows of one bucket's current window. */
interface Known {
  start: number;
  /** The count as the authority last reported it (this instance's acknowledged hits included). */
  confirmed: number;
  /** This instance's hits the authority has not acknowledged yet. */
  pending: number;
  /** Whether the authority has been asked about this window at all. */
  asked: boolean;
}

export interface LocalFirstOptions {
  /** Runs a task after the response, keeping the runtime alive for it (Workers: `waitUntil`). */
  defer(task: Promise<unknown>): void;
  /** A reconciliation that failed; the decision already made stands. */
  failed(bucket: string, err: unknown): void;
  /**
   * Bytes the buckets held may take, keys and overhead counted (bucket names hold what callers
   * send: addresses, `client_id`s); the least recently used is forgotten first.
   */
  maxBytes?: number;
}

/**
 * Rate limits decided where the request is served (docs/reference/operations.md), with a distant
 * authority (a Durable Object per bucket) kept informed after the response, not before it.
 *
 * A request is admitted while the count this instance knows, the authority's last answer plus
 * its own hits since, is under the limit; its hit then goes to the authority in the background,
 * whose answer corrects what is known. So one instance never admits more than the limit in a
 * window, and it learns what others admitted one round trip after its own request. What it may
 * trade: requests other instances admit within that round trip (bounded by the limit per
 * instance per window). `peek` answers from what is known and asks the authority in the
 * background once a window, so a failure count built up elsewhere reaches this instance too.
 */
export class LocalFirstRateLimiter implements RateLimiter {
  private readonly known: LRUCache<string, Known>;

  constructor(
    private readonly authority: RateLimiter,
    private readonly clock: Clock,
    private readonly options: LocalFirstOptions,
  ) {
    this.known = new LRUCache({ maxSize: options.maxBytes ?? RATE_LIMIT_BYTES, sizeCalculation: (_, key) => entryBytes(key, KNOWN_BYTES) });
  }

  hit(bucket: string, limit: number, windowSeconds: number): RateLimitDecision {
    const known = this.current(bucket, windowSeconds);
    const { decision } = countHit(this.asWindow(known), this.clock.now(), limit, windowSeconds);
    if (!decision.allowed) return decision;
    known.pending++;
    known.asked = true;
    this.reconcile(bucket, known, Promise.resolve(this.authority.hit(bucket, limit, windowSeconds)), true);
    return decision;
  }

  peek(bucket: string, limit: number, windowSeconds: number): RateLimitDecision {
    const known = this.current(bucket, windowSeconds);
    if (!known.asked) {
      known.asked = true;
      this.reconcile(bucket, known, Promise.resolve(this.authority.peek(bucket, limit, windowSeconds)), false);
    }
    return peekWindow(this.asWindow(known), this.clock.now(), limit, windowSeconds);
  }

  /** The bucket's known state for the window open now; a new window starts from nothing known. */
  private current(bucket: string, windowSeconds: number): Known {
    const start = windowStart(this.clock.now(), windowSeconds);
    let known = this.known.get(bucket);
    if (known?.start !== start) {
      known = { start, confirmed: 0, pending: 0, asked: false };
      this.known.set(bucket, known);
    }
    return known;
  }

  private asWindow(known: Known): WindowState {
    return { start: known.start, count: known.confirmed + known.pending };
  }

  /** Folds the authority's answer into what is known, in the background. */
  private reconcile(bucket: string, known: Known, answer: Promise<RateLimitDecision>, ownHit: boolean): void {
    const settled = answer.then(
      (decision) => {
        if (ownHit) known.pending--;
        // The authority's count (a refusal says 0 remaining: the limit). Answers may come back
        // out of order; within a window the count only grows.
        known.confirmed = Math.max(known.confirmed, decision.limit - decision.remaining);
      },
      (err: unknown) => {
        // An admitted hit the authority never heard of still counts here, for this window; and
        // the authority's count is asked again at the next peek, so it is not left unknown for good.
        known.asked = false;
        this.options.failed(bucket, err);
      },
    );
    this.options.defer(settled);
  }
}
