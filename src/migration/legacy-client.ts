import type { Config } from '../config';
import type { LogLine } from '../env';
import { REQUEST_ID_HEADER } from '../policies/request-id';
import type { Clock } from '../services/clock';
import { MAX_BODY_BYTES } from '../services/upstream/client';
import { readBounded } from '../services/upstream/io';
import { failure, Resilience, unavailable, type Failure } from '../services/upstream/resilience';
import type { Readiness } from '../services/record-source';
import { ApiError } from '../errors/api-error';

/** What the legacy backend answered: a v1 body (a record, a page, or `{statusCode, message}`). */
export interface LegacyAnswer {
  status: number;
  body: unknown;
  lastModified: string | null;
}

/** The existing v1 backend, behind an interface so tests and both runtimes can supply one. */
export interface LegacyBackend {
  /** `target` is a path and query below `LEGACY_V1_URL` (`/species?q=oak`). Throws upstream ApiErrors. */
  get(target: string, ctx: { requestId: string }): Promise<LegacyAnswer>;
  /** Whether it answers now, with the gateway's credential (for `/readyz` while it answers v1). */
  ready?(ctx: { requestId: string }): Promise<Readiness>;
}

/** What readiness asks the legacy backend: the first page of the one collection every v1 backend serves. */
const PROBE_TARGET = '/species';

/** The 4xx answers that are the backend's own v1 answer to the request; other statuses are failures. */
const ANSWERS: ReadonlySet<number> = new Set([200, 400, 404, 405, 410, 422]);

/**
 * Forwards v1 requests to `LEGACY_V1_URL` with the same discipline as upstream mode (one deadline,
 * one retry in a budget, its own circuit breaker), sending only its own headers: the request id
 * and `LEGACY_V1_AUTHORIZATION`. Nothing else of the caller's request is sent.
 */
export class LegacyClient implements LegacyBackend {
  private readonly resilience: Resilience;
  private checking: Promise<Readiness> | undefined;

  constructor(
    private readonly options: {
      baseUrl: string;
      authorization: string | undefined;
      tuning: Config['upstream'];
      clock: Clock;
      log(line: LogLine): void;
      fetch?: typeof fetch;
    },
  ) {
    this.resilience = new Resilience({ name: 'legacy v1 backend', credentialVariable: 'LEGACY_V1_AUTHORIZATION', ...options });
  }

  get(target: string, ctx: { requestId: string }): Promise<LegacyAnswer> {
    return this.resilience.call((deadline) => this.attempt(target, ctx, deadline), { requestId: ctx.requestId, path: target }, this.options.tuning.retries);
  }

  /** One call without retry, coalesced: an unreachable backend, or one refusing `LEGACY_V1_AUTHORIZATION`, is not ready. */
  ready(ctx: { requestId: string }): Promise<Readiness> {
    this.checking ??= this.check(ctx).finally(() => (this.checking = undefined));
    return this.checking;
  }

  private async check(ctx: { requestId: string }): Promise<Readiness> {
    let problem: string | undefined;
    try {
      const answer = await this.resilience.call((deadline) => this.attempt(PROBE_TARGET, ctx, deadline), { requestId: ctx.requestId, path: PROBE_TARGET }, 0);
      if (answer.status !== 200) problem = `answered ${answer.status} for ${PROBE_TARGET}`;
    } catch (err) {
      problem = err instanceof ApiError ? err.code : 'svc/internalError';
    }
    return { ready: !problem, report: { legacy: { reachable: !problem, breaker: this.resilience.breaker.state, ...(problem ? { problem } : {}) } } };
  }

  private async attempt(target: string, ctx: { requestId: string }, deadline: AbortSignal): Promise<LegacyAnswer | Failure> {
    const headers: Record<string, string> = { Accept: 'application/json', [REQUEST_ID_HEADER]: ctx.requestId };
    if (this.options.authorization) headers.Authorization = this.options.authorization;
    const fetchFn = this.options.fetch ?? fetch;
    let res: Response;
    let text: string;
    try {
      // Not followed: a redirect could carry the gateway's credential elsewhere.
      res = await fetchFn(this.options.baseUrl + target, { headers, signal: deadline, redirect: 'manual' });
      if (!ANSWERS.has(res.status)) {
        void res.body?.cancel().catch(() => {});
        return this.resilience.refused(res);
      }
      text = await readBounded(res, MAX_BODY_BYTES);
    } catch (err) {
      return this.resilience.thrown(err, deadline);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (err) {
      return failure(unavailable(), `answered a malformed body: ${(err as Error).message}`, { level: 'error' });
    }
    if (typeof body !== 'object' || body === null || (res.status !== 200 && typeof (body as { message?: unknown }).message !== 'string')) {
      return failure(unavailable(), `answered ${res.status} with a body that is not a v1 answer`, { level: 'error' });
    }
    return { status: res.status, body, lastModified: res.headers.get('last-modified') };
  }
}

/** The legacy client for `LEGACY_V1_URL`, if set; runtime-neutral (both entries go through `assembleServices`). */
export function createLegacyClient(config: Config, parts: { clock: Clock; log(line: LogLine): void; fetch?: typeof fetch }): LegacyClient | undefined {
  const { legacyUrl, legacyAuthorization } = config.migration;
  if (!legacyUrl) return undefined;
  return new LegacyClient({ baseUrl: legacyUrl, authorization: legacyAuthorization, tuning: config.upstream, ...parts });
}
