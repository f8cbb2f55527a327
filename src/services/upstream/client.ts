import type { UpstreamTuning } from '../../config';
import type { LogLine } from '../log';
import { ApiError } from '../../core/api-error';
import type { Clock } from '../clock';
import { noMetrics, type CacheResult, type Metrics } from '../metrics';
import type { SourceContext } from '../record-source';
import type { CachedResponse, ResponseCache } from '../cache/response-cache';
import type { CircuitBreaker } from './breaker';
import { freshnessMs } from './freshness';
import { backendHeaders } from './backend-headers';
import { readBounded } from './io';
import { failure, Resilience, unavailable, type Attempt, type Failure } from './resilience';
import type { RetryBudget } from './retry-budget';
import { StaleWarnings } from './stale-warnings';

export interface UpstreamOptions {
  /** `UPSTREAM_URL` without a trailing slash; paths (`/v2/...`) are appended to it. */
  baseUrl: string;
  /** `UPSTREAM_AUTHORIZATION`: the only credential ever sent upstream. */
  authorization: string | undefined;
  fetch?: typeof fetch;
  cache: ResponseCache;
  clock: Clock;
  tuning: UpstreamTuning;
  log(line: LogLine): void;
  /** None unless given. */
  metrics?: Metrics;
  /** Built from `tuning` unless given (tests inject them). */
  breaker?: CircuitBreaker;
  retryBudget?: RetryBudget;
}

/** A body past this size is refused (502), so a broken upstream cannot exhaust memory. */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

type Validate<T> = (body: unknown) => T;
type Answer<T> = { kind: 'ok'; value: T; text: string; cacheControl: string | null } | { kind: 'notFound' };
type Outcome<T> = { kind: 'answered'; value: T | undefined } | { kind: 'failed'; error: unknown } | { kind: 'late' };

/**
 * GETs against the upstream with everything between the gateway and an unreliable backend: a
 * per-call deadline, one jittered retry within a budget, a circuit breaker, a response cache with
 * serve-stale on error or after a short deadline, and coalescing of identical concurrent calls.
 * It sends only its own headers; nothing of the caller's request reaches it but the request id.
 */
export class UpstreamClient {
  private readonly resilience: Resilience;
  private readonly fetchFn: typeof fetch;
  private readonly inflight = new Map<string, Promise<unknown>>();
  /** Cache entries already parsed and validated; an in-memory cache hands back the same entry object. */
  private readonly decoded = new WeakMap<CachedResponse, unknown>();
  private readonly staleWarnings: StaleWarnings;
  private readonly metrics: Metrics;

  constructor(private readonly options: UpstreamOptions) {
    const { tuning, clock, log, breaker, retryBudget } = options;
    const metrics = (this.metrics = options.metrics ?? noMetrics);
    this.resilience = new Resilience({
      name: 'upstream',
      backend: 'upstream',
      metrics,
      credentialVariable: 'UPSTREAM_AUTHORIZATION',
      tuning,
      clock,
      log,
      breaker,
      retryBudget,
    });
    this.fetchFn = options.fetch ?? ((input, init) => fetch(input, init));
    this.staleWarnings = new StaleWarnings(clock, log);
  }

  get breaker(): CircuitBreaker {
    return this.resilience.breaker;
  }

  /** The validated body at `path`, or `undefined` when the upstream says 404. Throws upstream ApiErrors. */
  async get<T>(path: string, validate: Validate<T>, ctx: SourceContext): Promise<T | undefined> {
    const cached = await this.options.cache.get(path);
    const now = this.options.clock.now();
    if (cached && now < cached.freshUntil) {
      const value = this.decode(cached, validate);
      if (value !== undefined) return this.looked(ctx, 'hit', value);
    }
    let pending = this.inflight.get(path) as Promise<T | undefined> | undefined;
    const joined = pending !== undefined;
    // Noted on the trace before the wait: a miss whose call fails is still a miss.
    noted(ctx, joined ? 'coalesced' : 'miss', undefined);
    if (!pending) {
      pending = this.load(path, validate, ctx).finally(() => this.inflight.delete(path));
      this.inflight.set(path, pending);
    }
    const stale = cached && now >= cached.freshUntil && now < cached.staleUntil ? this.decode(cached, validate) : undefined;
    if (stale === undefined) return this.looked(ctx, joined ? 'coalesced' : 'miss', pending);

    const outcome = await this.within(pending, this.options.tuning.staleAfterMs);
    if (outcome.kind === 'answered') return this.looked(ctx, joined ? 'coalesced' : 'miss', outcome.value);
    if (outcome.kind === 'failed' && !(outcome.error instanceof ApiError)) throw outcome.error;
    // Failed, or still under way: the stale copy answers now. A call still under way goes on
    // and refreshes the cache if it ends well within its own deadline.
    const reason = outcome.kind === 'late' ? { slow_ms: this.options.tuning.staleAfterMs } : { code: (outcome.error as ApiError).code };
    this.staleWarnings.served(path, {
      request_id: ctx.requestId,
      trace_id: ctx.trace?.traceId,
      upstream_path: path,
      ...reason,
      stale_ms: this.options.clock.now() - cached!.freshUntil,
    });
    return this.looked(ctx, 'stale', stale);
  }

  /** Counts a cache lookup and notes it on the request's trace; passes `value` through. */
  private looked<V>(ctx: SourceContext, result: CacheResult, value: V): V {
    this.metrics.cacheLookup(result);
    return noted(ctx, result, value);
  }

  /** One uncached call without retry, for readiness; a 404 counts as a broken upstream. */
  async probe<T>(path: string, validate: Validate<T>, ctx: SourceContext): Promise<void> {
    const answer = await this.call(path, validate, ctx, 0);
    if (answer.kind === 'notFound') throw this.notServed(path, ctx);
  }

  /** The 502 for a collection the upstream does not have: almost always a wrong `UPSTREAM_URL`. */
  notServed(path: string, ctx: SourceContext): ApiError {
    this.options.log({
      level: 'error',
      message: `upstream answers 404 for ${path}: check UPSTREAM_URL`,
      request_id: ctx.requestId,
      trace_id: ctx.trace?.traceId,
    });
    return unavailable();
  }

  private async load<T>(path: string, validate: Validate<T>, ctx: SourceContext): Promise<T | undefined> {
    const answer = await this.call(path, validate, ctx, this.options.tuning.retries);
    if (answer.kind === 'notFound') return undefined;
    await this.store(path, answer.text, answer.cacheControl);
    return answer.value;
  }

  /** How `pending` ends, or `late` once `ms` have passed first (the call itself is not stopped). */
  private async within<T>(pending: Promise<T | undefined>, ms: number): Promise<Outcome<T>> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<Outcome<T>>((resolve) => (timer = setTimeout(() => resolve({ kind: 'late' }), ms)));
    const ended = pending.then(
      (value): Outcome<T> => ({ kind: 'answered', value }),
      (error: unknown): Outcome<T> => ({ kind: 'failed', error }),
    );
    try {
      return await Promise.race([ended, late]);
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
  }

  private async store(path: string, text: string, cacheControl: string | null): Promise<void> {
    const { cacheTtlMs, staleMs } = this.options.tuning;
    const ttl = freshnessMs(cacheControl, cacheTtlMs);
    if (ttl === undefined || ttl + staleMs === 0) return;
    const now = this.options.clock.now();
    try {
      await this.options.cache.set(path, { status: 200, body: text, freshUntil: now + ttl, staleUntil: now + ttl + staleMs });
    } catch (err) {
      // A cache that cannot store (an edge cache hiccup) must not fail a good answer.
      this.options.log({ level: 'warn', message: 'upstream cache refused an entry', error: (err as Error).message });
    }
  }

  /**
   * A cached body, parsed and re-validated once per entry object (a shared cache is not trusted
   * blindly); undefined if it fails. Records are then shared between requests, as the bundled
   * source shares its records: version changes copy, never mutate.
   */
  private decode<T>(entry: CachedResponse, validate: Validate<T>): T | undefined {
    if (this.decoded.has(entry)) return this.decoded.get(entry) as T;
    try {
      const value = validate(JSON.parse(entry.body));
      this.decoded.set(entry, value);
      return value;
    } catch {
      return undefined;
    }
  }

  /** The attempts of one call, within the shared resilience discipline. */
  private call<T>(path: string, validate: Validate<T>, ctx: SourceContext, retries: number): Promise<Answer<T>> {
    return this.resilience.call(
      (deadline, sent) => this.attempt(path, validate, ctx, deadline, sent),
      { ...ctx, path, url: this.options.baseUrl + path },
      retries,
    );
  }

  private async attempt<T>(path: string, validate: Validate<T>, ctx: SourceContext, deadline: AbortSignal, sent: Attempt): Promise<Answer<T> | Failure> {
    const headers = backendHeaders(ctx.requestId, sent.traceparent, this.options.authorization);
    let res: Response;
    let text: string;
    try {
      // Redirects are not followed: a canonical backend does not redirect, and following one could
      // carry the gateway's credential elsewhere.
      res = await this.fetchFn(this.options.baseUrl + path, { headers, signal: deadline, redirect: 'manual' });
      sent.status = res.status;
      if (res.status !== 200) {
        void res.body?.cancel().catch(() => {});
        return res.status === 404 ? { kind: 'notFound' } : this.resilience.refused(res);
      }
      text = await readBounded(res, MAX_BODY_BYTES);
    } catch (err) {
      return this.resilience.thrown(err, deadline);
    }
    try {
      return { kind: 'ok', value: validate(JSON.parse(text)), text, cacheControl: res.headers.get('cache-control') };
    } catch (err) {
      return failure(unavailable(), `answered a malformed body: ${(err as Error).message}`, { level: 'error' });
    }
  }
}

/** Notes on the request's trace where its answer came from (the access line's upstream cache result). */
function noted<T>(ctx: SourceContext, result: CacheResult, value: T): T {
  if (ctx.trace) ctx.trace.cache = result;
  return value;
}
