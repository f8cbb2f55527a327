import type { Context } from 'hono';
import { LRUCache } from 'lru-cache';
import type { Config } from '../config';
import type { AppEnv, Services } from '../env';
import { ApiError } from '../core/api-error';
import type { ErrorCode } from '../core/error-codes';
import { entryBytes } from '../services/cache/entry-size';
import type { RateLimitDecision } from '../services/rate-limit/rate-limiter';
import { isPromise } from '../core/maybe-promise';
import { WINDOW_SECONDS } from './rate-limit';
import { sourceAddress } from './source-address';

/** One refused credential, for the count and the log line. */
export interface AuthFailure {
  /** Where the credential arrived: `authorization`, `x-api-key`, `x-key`, `query:key`, `query:token`, `oauth:basic`, `oauth:body`. */
  place: string;
  code: ErrorCode;
  /** The OAuth client the token request named, if any. */
  clientId?: string;
}

/** A `client_id` is the caller's text: the log keeps enough of it to recognise, not a 4 KiB body. */
const LOGGED_CLIENT_ID = 200;

/**
 * Bytes the secrets that authenticated lately may take (each kept with its digest and a time, key
 * and overhead counted: some 5,000 keys of 40 characters). Only a success adds one, so traffic
 * cannot fill it with guesses; past the cap the longest unseen is forgotten first.
 */
export const KNOWN_GOOD_BYTES = 2 * 1024 * 1024;

/** A secret that authenticated: when it last did, and its digest where the credential store is keyed by one. */
interface Good {
  at: number;
  digest: string | undefined;
}

interface Bucket {
  name: string;
  /** How the refusal describes it. */
  who: string;
}

/**
 * Failed authentications (docs/reference/requests.md), counted per source address and per OAuth
 * `client_id` in the rate limiter's 60 s windows, under their own bucket names
 * (`authfail:addr:<ip>`, `authfail:client:<id>`): wherever the limiter is shared (Redis, the
 * Durable Object), so are the counts. Past `AUTH_FAILURES_PER_MINUTE`, an attempt is refused
 * before its secret is checked, so a guesser learns nothing more from that address, or about
 * that client, until the window turns; valid credentials from elsewhere are untouched.
 */
export class FailedAuthentications {
  private readonly limit: number;
  /**
   * Secrets that authenticated lately, each with its digest: a busy key is hashed once a window,
   * not on every request (SHA-256 was a twentieth of a cached page's CPU). They stay in this
   * process's memory for at most a window after their last success, as the requests that carry
   * them do; they are never logged, written or sent anywhere.
   */
  private readonly good = new LRUCache<string, Good>({ maxSize: KNOWN_GOOD_BYTES, sizeCalculation: (g, key) => entryBytes(key, 8 + (g.digest?.length ?? 0)) });

  constructor(
    private readonly config: Pick<Config, 'trustProxy' | 'hostile'>,
    private readonly services: Pick<Services, 'rateLimiter' | 'connection' | 'header' | 'metrics' | 'clock'>,
  ) {
    this.limit = config.hostile.authFailuresPerMinute;
  }

  /**
   * The digest of a secret that authenticated within the last window (docs/reference/operations.md), or
   * undefined: the throttle refuses unknown and failing credentials only, so one client that
   * guesses or is misconfigured cannot lock out the good callers behind its address. Kept in the
   * process (the isolate on Workers), so asking costs no round trip.
   */
  knownDigest(secret: string): string | undefined {
    return this.recent(secret)?.digest;
  }

  /** Whether a secret authenticated within the last window. */
  knownGood(secret: string): boolean {
    return this.recent(secret) !== undefined;
  }

  private recent(secret: string): Good | undefined {
    const seen = this.good.get(secret);
    return seen !== undefined && this.services.clock.now() - seen.at < WINDOW_SECONDS * 1000 ? seen : undefined;
  }

  /** Remembers a secret that has just authenticated, with its digest where one is looked up. */
  rememberGood(secret: string, digest?: string): void {
    const now = this.services.clock.now();
    const seen = this.good.get(secret);
    // Refreshed at most once a second: a busy key costs no cache writes on most requests.
    if (seen === undefined || now - seen.at >= 1000) this.good.set(secret, { at: now, digest });
  }

  /**
   * Called before a presented secret is checked: throws `refusal` (429, `Retry-After`) when the
   * source address or the named client is past the limit. `credential` is the presented
   * credential's log label (its place, never the secret), for the throttled access line.
   */
  guard(
    c: Context<AppEnv>,
    clientId: string | undefined,
    refusal: 'svc/tooManyRequests' | 'oauth/slowDown',
    credential?: string,
  ): undefined | Promise<undefined> {
    const buckets = this.buckets(this.address(c), clientId);
    const decided = buckets.map((b) => this.services.rateLimiter.peek(b.name, this.limit, WINDOW_SECONDS));
    // An in-process limiter answers at once: then there is nothing to wait for.
    if (decided.some(isPromise)) return Promise.all(decided).then((decisions) => this.refuseWhenFull(c, buckets, decisions, refusal, credential));
    return this.refuseWhenFull(c, buckets, decided as RateLimitDecision[], refusal, credential);
  }

  private refuseWhenFull(
    c: Context<AppEnv>,
    buckets: Bucket[],
    decisions: RateLimitDecision[],
    refusal: 'svc/tooManyRequests' | 'oauth/slowDown',
    credential: string | undefined,
  ): undefined {
    if (decisions.every((d) => d.allowed)) return undefined;
    const full = buckets.filter((_, i) => !decisions[i]!.allowed);
    const retryAfter = Math.max(...decisions.filter((d) => !d.allowed).map((d) => d.resetSeconds));
    c.get('logFlags').push('authThrottled');
    if (credential !== undefined) c.set('throttledCredential', credential);
    this.services.metrics.refused('auth_failures');
    throw new ApiError(
      refusal,
      `More than ${this.limit} failed authentications this minute ${full.map((b) => b.who).join(' and ')}; retry in ${retryAfter} s.`,
      {
        'Retry-After': String(retryAfter),
      },
    );
  }

  /**
   * Called once a presented credential has been refused: counts it, and has the request's one
   * log line (the access line) say so, never with the secret.
   */
  async record(c: Context<AppEnv>, failure: AuthFailure): Promise<void> {
    const address = this.address(c);
    const buckets = this.buckets(address, failure.clientId);
    this.services.metrics.authFailure(failure.place, failure.code);
    c.set('authFailure', {
      place: failure.place,
      code: failure.code,
      client_id: failure.clientId?.slice(0, LOGGED_CLIENT_ID) ?? null,
      source_address: address ?? null,
    });
    await Promise.all(buckets.map((b) => this.services.rateLimiter.hit(b.name, this.limit, WINDOW_SECONDS)));
  }

  private address(c: Context<AppEnv>): string | undefined {
    // `X-Forwarded-For` counts only behind a trusted proxy: not even read otherwise.
    const forwardedFor = this.config.trustProxy ? this.services.header(c, 'x-forwarded-for') : undefined;
    return sourceAddress(this.services.connection(c), forwardedFor, this.config.trustProxy);
  }

  /** The buckets an attempt counts in: its address when one is known, and the client it names. */
  private buckets(address: string | undefined, clientId: string | undefined): Bucket[] {
    const buckets: Bucket[] = [];
    if (address !== undefined) buckets.push({ name: `authfail:addr:${address}`, who: 'from this address' });
    if (clientId) buckets.push({ name: `authfail:client:${clientId}`, who: 'for this client' });
    return buckets;
  }
}
