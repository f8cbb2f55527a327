/**
 * The metrics service for Node (CONTRACT section 20): Prometheus metrics through prom-client,
 * served by the entry on their own listener. Every label is bounded by what the gateway has
 * (versions, route templates, methods it knows, statuses it answers, fixed outcome names):
 * no caller, credential, id or raw path ever becomes a label value.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type {
  BackendName,
  BackendOutcome,
  BreakerPosition,
  CacheResult,
  ComparisonResult,
  Metrics,
  RefusalKind,
  RequestObservation,
} from '../services/metrics';

/** The methods kept as label values; any other is `OTHER`, however many a client invents. */
const METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const BREAKER_POSITIONS: readonly BreakerPosition[] = ['closed', 'open', 'half-open'];
const REFUSAL_KINDS: readonly RefusalKind[] = ['rate_limit', 'token_rate_limit', 'auth_failures'];

/** prom-client's default metrics that are gauges with a `_total` suffix. */
const MISNAMED_DEFAULTS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/** The label value of a request outside the versions, and of one whose caller left before its answer. */
const NONE = 'none';
const ABORTED = 'aborted';

/**
 * Histogram bounds in seconds, 1 ms up in 1-2.5-5 steps until one is past `timeoutMs`, so a call
 * that ran into the upstream deadline still falls in a finite bucket of its own.
 */
export function durationBuckets(timeoutMs: number): number[] {
  const bounds: number[] = [];
  for (let decade = 0.001; ; decade *= 10) {
    for (const step of [1, 2.5, 5]) {
      const bound = Number((decade * step).toPrecision(3));
      bounds.push(bound);
      if (bound > timeoutMs / 1000) return bounds;
    }
  }
}

export interface PrometheusOptions {
  /** `UPSTREAM_TIMEOUT_MS`: the buckets reach past it. */
  timeoutMs: number;
  /** The gateway's package version and the dataset's (its `last_modified`, or `upstream`). */
  build: { version: string; dataset: string };
  /** Runtime metrics (event-loop delay, heap, GC): on for the server, off for tests that count series. */
  runtime?: boolean;
}

type Labels<N extends string> = Partial<Record<N, string | number>>;

/** Prometheus metrics for one gateway process; `text()` is the `/metrics` body. */
export class PrometheusMetrics implements Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'version' | 'route' | 'method' | 'status' | 'answered_by'>;
  private readonly duration: Histogram<'version' | 'route'>;
  private readonly v1Requests: Counter<'credential_place'>;
  private readonly backendCalls: Histogram<'backend' | 'outcome'>;
  private readonly cache: Counter<'result'>;
  private readonly refusals: Counter<'kind'>;
  private readonly authFailures: Counter<'place' | 'code'>;
  private readonly comparisons: Counter<'route' | 'result'>;
  private readonly dropped: Counter;
  private readonly rejections: Counter<'status'>;
  private readonly breakers = new Map<BackendName, () => BreakerPosition>();
  /**
   * Label objects kept per distinct label set, so a request costs a key and a lookup rather than a
   * new object for each metric. Bounded as the label values are.
   */
  private readonly requestLabels = new Map<string, [Labels<'version' | 'route' | 'method' | 'status' | 'answered_by'>, Labels<'version' | 'route'>]>();

  constructor(options: PrometheusOptions) {
    const registers = [this.registry];
    const buckets = durationBuckets(options.timeoutMs);
    this.requests = new Counter({
      name: 'gateway_requests_total',
      help: 'Requests answered, by API version, route template, method, status code and who answered (gateway or upstream).',
      labelNames: ['version', 'route', 'method', 'status', 'answered_by'],
      registers,
    });
    this.duration = new Histogram({
      name: 'gateway_request_duration_seconds',
      help: 'Time from the first policy to the response, by API version and route template.',
      labelNames: ['version', 'route'],
      buckets,
      registers,
    });
    this.v1Requests = new Counter({
      name: 'gateway_v1_requests_total',
      help: 'v1 requests by where their credential was presented (none: without one).',
      labelNames: ['credential_place'],
      registers,
    });
    this.backendCalls = new Histogram({
      name: 'gateway_backend_call_duration_seconds',
      help: 'Backend calls (each attempt, retries included) by backend and outcome: ok, timeout, refused, 5xx, breaker_open, invalid.',
      labelNames: ['backend', 'outcome'],
      buckets,
      registers,
    });
    this.cache = new Counter({
      name: 'gateway_upstream_cache_lookups_total',
      help: 'Upstream response cache lookups by result: hit, stale, miss, coalesced.',
      labelNames: ['result'],
      registers,
    });
    this.refusals = new Counter({
      name: 'gateway_rate_limit_refusals_total',
      help: 'Requests refused with 429, by the limit: rate_limit, token_rate_limit, auth_failures.',
      labelNames: ['kind'],
      registers,
    });
    // Every kind from the start, so a dashboard shows 0 rather than no data until the first 429.
    for (const kind of REFUSAL_KINDS) this.refusals.inc({ kind }, 0);
    this.authFailures = new Counter({
      name: 'gateway_auth_failures_total',
      help: 'Presented credentials refused, by where they arrived and the error code.',
      labelNames: ['place', 'code'],
      registers,
    });
    this.comparisons = new Counter({
      name: 'gateway_shadow_comparisons_total',
      help: 'v1 shadow comparisons (facade against legacy backend) by route template and result: same, different, not_made.',
      labelNames: ['route', 'result'],
      registers,
    });
    this.dropped = new Counter({
      name: 'gateway_connections_refused_total',
      help: 'Connections closed at once because MAX_CONNECTIONS were open.',
      registers,
    });
    this.rejections = new Counter({
      name: 'gateway_http_rejections_total',
      help: "Requests Node's HTTP layer refused before the gateway's routes saw them, by status code.",
      labelNames: ['status'],
      registers,
    });
    const breakers = this.breakers;
    new Gauge({
      name: 'gateway_breaker_state',
      help: 'Circuit breaker of each backend: 1 for its current state (closed, open, half-open), 0 for the others.',
      labelNames: ['backend', 'state'],
      registers,
      // Read when scraped: a breaker turns half-open by time alone, with nothing to report it.
      collect() {
        for (const [backend, read] of breakers) {
          const now = read();
          for (const state of BREAKER_POSITIONS) this.set({ backend, state }, state === now ? 1 : 0);
        }
      },
    });
    new Gauge({
      name: 'gateway_build_info',
      help: 'Always 1: the gateway version and dataset version as labels.',
      labelNames: ['version', 'dataset'],
      registers,
    }).set(options.build, 1);
    new Gauge({
      name: 'gateway_start_time_seconds',
      help: 'When the gateway started, in seconds since the Unix epoch.',
      registers,
    }).set(Math.round(Date.now() / 1000));
    if (options.runtime !== false) {
      collectDefaultMetrics({ register: this.registry });
      // Gauges named like counters, which `promtool check metrics` refuses; the handle counts add
      // little beside event-loop delay, heap and GC.
      for (const name of MISNAMED_DEFAULTS) this.registry.removeSingleMetric(name);
    }
  }

  requestObserved(o: RequestObservation): void {
    const version = o.version ?? NONE;
    const method = METHODS.has(o.method) ? o.method : 'OTHER';
    const status = o.status ?? ABORTED;
    const key = `${version} ${o.route} ${method} ${status} ${o.answeredBy}`;
    let labels = this.requestLabels.get(key);
    if (!labels) {
      labels = [
        { version, route: o.route, method, status, answered_by: o.answeredBy },
        { version, route: o.route },
      ];
      this.requestLabels.set(key, labels);
    }
    this.requests.inc(labels[0]);
    this.duration.observe(labels[1], o.durationMs / 1000);
    if (o.version === 'v1') this.v1Requests.inc({ credential_place: o.credentialPlace ?? NONE });
  }

  backendCall(backend: BackendName, outcome: BackendOutcome, durationMs: number): void {
    this.backendCalls.observe({ backend, outcome }, durationMs / 1000);
  }

  cacheLookup(result: CacheResult): void {
    this.cache.inc({ result });
  }

  watchBreaker(backend: BackendName, state: () => BreakerPosition): void {
    this.breakers.set(backend, state);
  }

  refused(kind: RefusalKind): void {
    this.refusals.inc({ kind });
  }

  authFailure(place: string, code: string): void {
    this.authFailures.inc({ place, code });
  }

  comparison(route: string, result: ComparisonResult): void {
    this.comparisons.inc({ route, result });
  }

  connectionRefused(): void {
    this.dropped.inc();
  }

  httpRejection(status: number): void {
    this.rejections.inc({ status });
  }

  /** The exposition (text format 0.0.4) and its content type. */
  async text(): Promise<{ body: string; contentType: string }> {
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
