import type { Config } from '../config';
import type { LogLine } from '../env';
import { REQUEST_ID_HEADER } from '../policies/request-id';
import type { Clock } from '../services/clock';
import type { BackendFacts, Metrics } from '../services/metrics';
import { MAX_BODY_BYTES } from '../services/upstream/client';
import { readBounded } from '../services/upstream/io';
import { failure, Resilience, unavailable, type Failure, type Seen } from '../services/upstream/resilience';

/** What the legacy backend answered: a v1 body (a record, a page, or `{statusCode, message}`). */
export interface LegacyAnswer {
  status: number;
  body: unknown;
  lastModified: string | null;
}

/** The existing v1 backend, behind an interface so tests and both runtimes can supply one. */
export interface LegacyBackend {
  /**
   * `target` is a path and query below `LEGACY_V1_URL` (`/species?q=oak`); what the call did is
   * noted in `ctx.backend`. Throws upstream ApiErrors.
   */
  get(target: string, ctx: LegacyContext): Promise<LegacyAnswer>;
}

export interface LegacyContext {
  requestId: string;
  backend?: BackendFacts;
}

/** The 4xx answers that are the backend's own v1 answer to the request; other statuses are failures. */
const ANSWERS: ReadonlySet<number> = new Set([200, 400, 404, 405, 410, 422]);

/**
 * Forwards v1 requests to `LEGACY_V1_URL` with the same discipline as upstream mode (one deadline,
 * one retry in a budget, its own circuit breaker), sending only its own headers: the request id
 * and `LEGACY_V1_AUTHORIZATION`. Nothing else of the caller's request is sent.
 */
export class LegacyClient implements LegacyBackend {
  private readonly resilience: Resilience;

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

  get(target: string, ctx: LegacyContext): Promise<LegacyAnswer> {
    return this.resilience.call(
      (deadline, seen) => this.attempt(target, ctx, deadline, seen),
      { requestId: ctx.requestId, path: target, backend: ctx.backend },
      this.options.tuning.retries,
    );
  }

  private async attempt(target: string, ctx: LegacyContext, deadline: AbortSignal, seen: Seen): Promise<LegacyAnswer | Failure> {
    const headers: Record<string, string> = { Accept: 'application/json', [REQUEST_ID_HEADER]: ctx.requestId };
    if (this.options.authorization) headers.Authorization = this.options.authorization;
    const fetchFn = this.options.fetch ?? fetch;
    let res: Response;
    let text: string;
    try {
      // Not followed: a redirect could carry the gateway's credential elsewhere.
      res = await fetchFn(this.options.baseUrl + target, { headers, signal: deadline, redirect: 'manual' });
      seen.status = res.status;
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
