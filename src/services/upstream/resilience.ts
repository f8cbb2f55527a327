import type { UpstreamTuning } from '../../config';
import type { LogLine } from '../../env';
import { ApiError } from '../../errors/api-error';
import type { Clock } from '../clock';
import type { BackendFacts, BackendName, BackendOutcome, Metrics } from '../metrics';
import { CircuitBreaker } from './breaker';
import { MalformedUpstream } from './envelope';
import { retryAfterSeconds } from './freshness';
import { pause } from './io';
import { RetryBudget } from './retry-budget';

/** Upper bound of the random pause before the one retry. */
const RETRY_JITTER_MS = 50;
/** Retries a burst may take before the ratio of the budget applies. */
const RETRY_BURST = 10;

/** An attempt that did not give an answer, and what the discipline should make of it. */
export interface Failure {
  kind: 'failed';
  error: ApiError;
  /** Connection errors and 502/503/504 may be retried once; nothing else. */
  retryable: boolean;
  /** Counts toward opening the breaker (the backend is down or broken, not merely refusing us). */
  outage: boolean;
  level: 'warn' | 'error';
  reason: string;
  /** How the metrics count it. */
  outcome: BackendOutcome;
}

/** What an attempt saw of the backend's answer, for the request's facts. */
export interface Seen {
  status: number | null;
}

export const unavailable = () => new ApiError('upstream/unavailable', 'The upstream service could not answer; try again later.');

export const failure = (
  error: ApiError,
  reason: string,
  flags: { retryable?: boolean; outage?: boolean; level?: 'warn' | 'error'; outcome?: BackendOutcome } = {},
): Failure => ({
  kind: 'failed',
  error,
  reason,
  retryable: flags.retryable ?? false,
  outage: flags.outage ?? true,
  level: flags.level ?? 'warn',
  outcome: flags.outcome ?? 'invalid',
});

export interface ResilienceOptions {
  /** What the log lines call the backend (`upstream`, `legacy v1 backend`). */
  name: string;
  /** The backend's name in metrics. */
  backend: BackendName;
  metrics: Metrics;
  /** The variable holding the gateway's own credential for it, named when the backend refuses it. */
  credentialVariable: string;
  tuning: UpstreamTuning;
  clock: Clock;
  log(line: LogLine): void;
  breaker?: CircuitBreaker;
  retryBudget?: RetryBudget;
}

/**
 * The discipline between the gateway and an unreliable backend, shared by every client of one:
 * one deadline per call, one jittered retry within a budget, and a circuit breaker. What an
 * attempt is (which request, which answers count as good) belongs to the client.
 */
export class Resilience {
  readonly breaker: CircuitBreaker;
  private readonly budget: RetryBudget;

  constructor(private readonly options: ResilienceOptions) {
    const { tuning, clock, log, name } = options;
    this.breaker =
      options.breaker ??
      new CircuitBreaker(tuning.breakerThreshold, tuning.breakerCooldownMs, clock, (state) =>
        log({ level: state === 'open' ? 'error' : 'info', message: `${name} circuit breaker ${state}` }),
      );
    this.budget = options.retryBudget ?? new RetryBudget(tuning.retryBudgetPercent / 100, RETRY_BURST);
    options.metrics.watchBreaker(options.backend, () => this.breaker.state);
  }

  /**
   * The attempts of one call, within one deadline, the breaker and the retry budget. Each attempt
   * is counted in the metrics and noted in the request's facts (`ctx.backend`), if it has any.
   */
  async call<A>(
    attempt: (deadline: AbortSignal, seen: Seen) => Promise<A | Failure>,
    ctx: { requestId: string; path: string; backend?: BackendFacts | undefined },
    retries: number,
  ): Promise<A> {
    const { metrics, backend } = this.options;
    const facts = ctx.backend;
    const deadline = AbortSignal.timeout(this.options.tuning.timeoutMs);
    this.budget.deposit();
    for (let n = 1; ; n++) {
      if (facts) facts.calls++;
      if (!this.breaker.allow()) {
        metrics.backendCall(backend, 'breaker_open', 0);
        throw this.openError();
      }
      const seen: Seen = { status: null };
      const began = performance.now();
      const outcome = await attempt(deadline, seen);
      const ms = performance.now() - began;
      const failed = isFailure(outcome);
      metrics.backendCall(backend, failed ? outcome.outcome : 'ok', ms);
      if (facts) {
        facts.status = seen.status;
        facts.durationMs += ms;
        if (!failed) facts.answered = true;
      }
      if (failed && outcome.outage) this.breaker.failure();
      else this.breaker.success();
      if (!failed) return outcome;
      this.options.log({
        level: outcome.level,
        message: `${this.options.name} ${outcome.reason}`,
        request_id: ctx.requestId,
        upstream_path: ctx.path,
        attempt: n,
        code: outcome.error.code,
      });
      const retry = outcome.retryable && n <= retries && !deadline.aborted && this.budget.withdraw();
      if (!retry) throw outcome.error;
      await pause(Math.random() * RETRY_JITTER_MS, deadline);
    }
  }

  /** A fetch that threw: the deadline passed, the body was refused, or the connection failed. */
  thrown(err: unknown, deadline: AbortSignal): Failure {
    if (deadline.aborted)
      return failure(new ApiError('upstream/timeout', `The upstream service did not answer within ${this.options.tuning.timeoutMs} ms.`), 'timed out', {
        outcome: 'timeout',
      });
    if (err instanceof MalformedUpstream) return failure(unavailable(), `answered a malformed body: ${err.message}`, { level: 'error' });
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return failure(unavailable(), `connection failed: ${cause?.code ?? cause?.message ?? (err as Error).message}`, { retryable: true, outcome: 'refused' });
  }

  /** An answer the client does not take as one: back-off, 5xx, a refused gateway credential, the unexpected. */
  refused(res: Response): Failure {
    const { status } = res;
    const wait = retryAfterSeconds(res.headers.get('retry-after'), this.options.clock.now());
    if ((status === 503 || status === 429) && wait !== undefined) {
      return failure(
        new ApiError('upstream/backOff', `The upstream service asks to retry in ${wait} s.`, { 'Retry-After': String(wait) }),
        `asked to back off (${status}, Retry-After ${wait})`,
        { outcome: status >= 500 ? '5xx' : 'invalid' },
      );
    }
    if (status >= 500) return failure(unavailable(), `answered ${status}`, { retryable: status === 502 || status === 503 || status === 504, outcome: '5xx' });
    if (status === 401 || status === 403) {
      return failure(unavailable(), `refused the gateway's own credential (${status}): check ${this.options.credentialVariable}`, {
        outage: false,
        level: 'error',
      });
    }
    return failure(unavailable(), `answered an unexpected ${status}`, { outage: false, level: 'error' });
  }

  private openError(): ApiError {
    const seconds = Math.max(1, Math.ceil(this.breaker.retryAfterMs() / 1000));
    return new ApiError('upstream/unavailable', 'The upstream service is failing; the gateway is not calling it for now.', { 'Retry-After': String(seconds) });
  }
}

function isFailure(outcome: unknown): outcome is Failure {
  return typeof outcome === 'object' && outcome !== null && (outcome as Failure).kind === 'failed';
}
