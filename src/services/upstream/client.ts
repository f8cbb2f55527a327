import type { UpstreamTuning } from '../../config';
import type { LogLine } from '../../env';
import { ApiError } from '../../errors/api-error';
import { REQUEST_ID_HEADER } from '../../policies/request-id';
import type { Clock } from '../clock';
import type { SourceContext } from '../record-source';
import type { CachedResponse, ResponseCache } from '../response-cache';
import type { CircuitBreaker } from './breaker';
import { freshnessMs } from './freshness';
import { readBounded } from './io';
import { failure, Resilience, unavailable, type Failure } from './resilience';
import type { RetryBudget } from './retry-budget';

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
  /** Built from `tuning` unless given (tests inject them). */
  breaker?: CircuitBreaker;
  retryBudget?: RetryBudget;
}

/** A body past this size is refused (502), so a broken upstream cannot exhaust memory. */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

type Validate<T> = (body: unknown) => T;
type Answer<T> = { kind: 'ok'; value: T; text: string; cacheControl: string | null } | { kind: 'notFound' };

/**
 * GETs against the upstream with everything between the gateway and an unreliable backend: a
 * per-call deadline, one jittered retry within a budget, a circuit breaker, a response cache with
 * serve-stale-on-error, and coalescing of identical concurrent calls. It sends only its own
 * headers; nothing of the caller's request reaches it but the request id.
 */
export class UpstreamClient {
  private readonly resilience: Resilience;
  private readonly fetchFn: typeof fetch;
  private readonly inflight = new Map<string, Promise<unknown>>();
  /** Cache entries already parsed and validated; an in-memory cache hands back the same entry object. */
  private readonly decoded = new WeakMap<CachedResponse, unknown>();

  constructor(private readonly options: UpstreamOptions) {
    const { tuning, clock, log, breaker, retryBudget } = options;
    this.resilience = new Resilience({ name: 'upstream', credentialVariable: 'UPSTREAM_AUTHORIZATION', tuning, clock, log, breaker, retryBudget });
    this.fetchFn = options.fetch ?? ((input, init) => fetch(input, init));
  }

  get breaker(): CircuitBreaker {
    return this.resilience.breaker;
  }

  /** The validated body at `path`, or `undefined` when the upstream says 404. Throws upstream ApiErrors. */
  async get<T>(path: string, validate: Validate<T>, ctx: SourceContext): Promise<T | undefined> {
    let cached = await this.options.cache.get(path);
    if (cached && this.options.clock.now() < cached.freshUntil) {
      const value = this.decode(cached, validate);
      if (value !== undefined) return value;
      cached = undefined;
    }
    let pending = this.inflight.get(path) as Promise<T | undefined> | undefined;
    if (!pending) {
      pending = this.load(path, validate, cached, ctx).finally(() => this.inflight.delete(path));
      this.inflight.set(path, pending);
    }
    return pending;
  }

  /** One uncached call without retry, for readiness; a 404 counts as a broken upstream. */
  async probe<T>(path: string, validate: Validate<T>, ctx: SourceContext): Promise<void> {
    const answer = await this.call(path, validate, ctx, 0);
    if (answer.kind === 'notFound') throw this.notServed(path);
  }

  /** The 502 for a collection the upstream does not have: almost always a wrong `UPSTREAM_URL`. */
  notServed(path: string): ApiError {
    this.options.log({ level: 'error', message: `upstream answers 404 for ${path}: check UPSTREAM_URL` });
    return unavailable();
  }

  private async load<T>(path: string, validate: Validate<T>, cached: CachedResponse | undefined, ctx: SourceContext): Promise<T | undefined> {
    try {
      const answer = await this.call(path, validate, ctx, this.options.tuning.retries);
      if (answer.kind === 'notFound') return undefined;
      await this.store(path, answer.text, answer.cacheControl);
      return answer.value;
    } catch (err) {
      const now = this.options.clock.now();
      const stale = cached && err instanceof ApiError && now < cached.staleUntil ? this.decode(cached, validate) : undefined;
      if (stale === undefined) throw err;
      this.options.log({ level: 'warn', message: 'upstream failed: serving a stale response', request_id: ctx.requestId, upstream_path: path, code: (err as ApiError).code, stale_ms: now - cached!.freshUntil });
      return stale;
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
    return this.resilience.call((deadline) => this.attempt(path, validate, ctx, deadline), { requestId: ctx.requestId, path }, retries);
  }

  private async attempt<T>(path: string, validate: Validate<T>, ctx: SourceContext, deadline: AbortSignal): Promise<Answer<T> | Failure> {
    const headers: Record<string, string> = { Accept: 'application/json', [REQUEST_ID_HEADER]: ctx.requestId };
    if (this.options.authorization) headers.Authorization = this.options.authorization;
    let res: Response;
    let text: string;
    try {
      // Redirects are not followed: a canonical backend does not redirect, and following one could
      // carry the gateway's credential elsewhere.
      res = await this.fetchFn(this.options.baseUrl + path, { headers, signal: deadline, redirect: 'manual' });
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
