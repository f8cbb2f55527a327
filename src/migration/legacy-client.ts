import type { Config } from '../config';
import type { LogLine } from '../services/log';
import type { Clock } from '../services/clock';
import type { Metrics } from '../services/metrics';
import { MAX_BODY_BYTES } from '../services/upstream/client';
import { backendHeaders } from '../services/upstream/backend-headers';
import { readBounded } from '../services/upstream/io';
import { failure, Resilience, unavailable, type Attempt, type Failure } from '../services/upstream/resilience';
import { ApiError } from '../core/api-error';
import type { Readiness } from '../services/record-source';
import type { BackendContext, LegacyAnswer, LegacyBackend } from './legacy-backend';

/** What readiness asks the legacy backend: the first page of the one collection every v1 backend serves. */
const PROBE_TARGET = '/species';

/** The 4xx answers that are the backend's own v1 answer to the request; other statuses are failures. */
const ANSWERS: ReadonlySet<number> = new Set([200, 400, 404, 405, 410, 422]);

/**
 * Forwards v1 requests to `LEGACY_V1_URL` with the same discipline as upstream mode (one deadline,
 * one retry in a budget, its own circuit breaker), sending only its own headers: the request id,
 * the trace and `LEGACY_V1_AUTHORIZATION`. Nothing else of the caller's request is sent.
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
      metrics: Metrics;
      fetch?: typeof fetch;
    },
  ) {
    this.resilience = new Resilience({ name: 'legacy v1 backend', backend: 'legacy', credentialVariable: 'LEGACY_V1_AUTHORIZATION', ...options });
  }

  get(target: string, ctx: BackendContext): Promise<LegacyAnswer> {
    return this.resilience.call(
      (deadline, sent) => this.attempt(target, ctx, deadline, sent),
      { ...ctx, path: target, url: this.options.baseUrl + target },
      this.options.tuning.retries,
    );
  }

  /** One call without retry, coalesced: an unreachable backend, or one refusing `LEGACY_V1_AUTHORIZATION`, is not ready. */
  ready(ctx: BackendContext): Promise<Readiness> {
    this.checking ??= this.check(ctx).finally(() => (this.checking = undefined));
    return this.checking;
  }

  private async check(ctx: BackendContext): Promise<Readiness> {
    let problem: string | undefined;
    try {
      const answer = await this.resilience.call(
        (deadline, sent) => this.attempt(PROBE_TARGET, ctx, deadline, sent),
        { ...ctx, path: PROBE_TARGET, url: this.options.baseUrl + PROBE_TARGET },
        0,
      );
      if (answer.status !== 200) problem = `answered ${answer.status} for ${PROBE_TARGET}`;
    } catch (err) {
      problem = err instanceof ApiError ? err.code : 'svc/internalError';
    }
    return { ready: !problem, report: { legacy: { reachable: !problem, breaker: this.resilience.breaker.state, ...(problem ? { problem } : {}) } } };
  }

  private async attempt(target: string, ctx: BackendContext, deadline: AbortSignal, sent: Attempt): Promise<LegacyAnswer | Failure> {
    const headers = backendHeaders(ctx.requestId, sent.traceparent, this.options.authorization);
    const fetchFn = this.options.fetch ?? fetch;
    let res: Response;
    let text: string;
    try {
      // Not followed: a redirect could carry the gateway's credential elsewhere.
      res = await fetchFn(this.options.baseUrl + target, { headers, signal: deadline, redirect: 'manual' });
      sent.status = res.status;
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
export function createLegacyClient(
  config: Config,
  parts: { clock: Clock; log(line: LogLine): void; metrics: Metrics; fetch?: typeof fetch },
): LegacyClient | undefined {
  const { legacyUrl, legacyAuthorization } = config.migration;
  if (!legacyUrl) return undefined;
  return new LegacyClient({ baseUrl: legacyUrl, authorization: legacyAuthorization, tuning: config.upstream, ...parts });
}
