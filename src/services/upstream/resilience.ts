import type { UpstreamTuning } from '../../config';
import { RequestTrace, type BackendName, type BackendOutcome } from '../../core/request-trace';
import type { LogLine } from '../log';
import { ApiError } from '../../core/api-error';
import type { Clock } from '../clock';
import type { Metrics } from '../metrics';
import { CircuitBreaker } from './breaker';
import { MalformedUpstream } from './envelope-check';
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
  /** Which backend it is, for the request's trace and the metrics. */
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

/** Who a call is for: the request's id and trace (a call made outside a request starts a trace of its own). */
export interface CallContext {
  requestId: string;
  trace?: RequestTrace;
  /** The backend path and query, for the log. */
  path: string;
  /** The whole URL called, for a tracing exporter. */
  url: string;
}

/**
 * What one attempt sends and learns: the `traceparent` to send (this request's trace, a span of
 * its own), and the HTTP status the backend answered, which the attempt notes.
 */
export interface Attempt {
  traceparent: string;
  status: number | null;
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
   * The attempts of one call, within one deadline, the breaker and the retry budget. The call,
   * retry included, is noted on the request's trace: the backend's last status, the time it took
   * and how it ended.
   */
  async call<A>(attempt: (deadline: AbortSignal, sent: Attempt) => Promise<A | Failure>, ctx: CallContext, retries: number): Promise<A> {
    const trace = ctx.trace ?? RequestTrace.start();
    const started = performance.now();
    const sent: Attempt = { traceparent: '', status: null };
    let outcome: BackendOutcome = 'ok';
    try {
      return await this.attempts(attempt, ctx, trace, sent, retries);
    } catch (err) {
      outcome = outcomeOf(err, sent.status);
      throw err;
    } finally {
      trace.noteCall({ backend: this.options.backend, status: sent.status, durationMs: performance.now() - started, outcome });
    }
  }

  private async attempts<A>(
    attempt: (deadline: AbortSignal, sent: Attempt) => Promise<A | Failure>,
    ctx: CallContext,
    trace: RequestTrace,
    sent: Attempt,
    retries: number,
  ): Promise<A> {
    const deadline = AbortSignal.timeout(this.options.tuning.timeoutMs);
    this.budget.deposit();
    for (let n = 1; ; n++) {
      if (!this.breaker.allow()) {
        this.options.metrics.backendCall(this.options.backend, 'breaker_open', 0);
        throw this.openError();
      }
      const outcome = await this.attempt(attempt, deadline, sent, trace, ctx.url);
      const failed = isFailure(outcome);
      if (failed && outcome.outage) this.breaker.failure();
      else this.breaker.success();
      if (!failed) return outcome;
      this.options.log({
        level: outcome.level,
        message: `${this.options.name} ${outcome.reason}`,
        request_id: ctx.requestId,
        trace_id: trace.traceId,
        upstream_path: ctx.path,
        attempt: n,
        code: outcome.error.code,
      });
      const retry = outcome.retryable && n <= retries && !deadline.aborted && this.budget.withdraw();
      if (!retry) throw outcome.error;
      await pause(Math.random() * RETRY_JITTER_MS, deadline);
    }
  }

  /** One attempt, with a span of its own in the request's trace, noted there and counted in the metrics as it ends. */
  private async attempt<A>(
    attempt: (deadline: AbortSignal, sent: Attempt) => Promise<A | Failure>,
    deadline: AbortSignal,
    sent: Attempt,
    trace: RequestTrace,
    url: string,
  ): Promise<A | Failure> {
    const { spanId, traceparent } = trace.outgoing();
    sent.traceparent = traceparent;
    sent.status = null;
    const startMs = Date.now();
    const began = performance.now();
    let error: string | undefined;
    try {
      const outcome = await attempt(deadline, sent);
      const failed = isFailure(outcome);
      if (failed) error = outcome.reason;
      this.options.metrics.backendCall(this.options.backend, failed ? outcome.outcome : 'ok', performance.now() - began);
      return outcome;
    } catch (err) {
      error = String(err);
      throw err;
    } finally {
      trace.noteAttempt({ spanId, backend: this.options.backend, url, startMs, durationMs: performance.now() - began, status: sent.status, error });
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
    return new BreakerOpen('upstream/unavailable', 'The upstream service is failing; the gateway is not calling it for now.', {
      'Retry-After': String(seconds),
    });
  }
}

function isFailure(outcome: unknown): outcome is Failure {
  return typeof outcome === 'object' && outcome !== null && (outcome as Failure).kind === 'failed';
}

/** The refusal of a call the open breaker did not let through: the same 502, told apart for the trace. */
class BreakerOpen extends ApiError {}

/** How a call that threw ended, from the error and the last status the backend gave. */
function outcomeOf(err: unknown, status: number | null): BackendOutcome {
  if (err instanceof BreakerOpen) return 'breaker_open';
  if (err instanceof ApiError && err.code === 'upstream/timeout') return 'timeout';
  if (status === null) return 'refused';
  return status >= 500 ? '5xx' : 'invalid';
}
