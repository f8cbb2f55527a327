/**
 * The metrics service for Node (docs/reference/observability.md): Prometheus metrics through prom-client,
 * served by the entry on their own listener. Every label is bounded by what the gateway has
 * (versions, route templates, methods it knows, statuses it answers, fixed outcome names):
 * no caller, credential, id or raw path ever becomes a label value.
 */
import type { Counter, Metric, Registry } from 'prom-client';
import type {
  AnsweredBy,
  BackendName,
  BackendOutcome,
  BreakerPosition,
  CacheResult,
  ComparisonResult,
  Metrics,
  RefusalKind,
  RequestObservation,
} from '../services/metrics';
import { type Buckets, CounterFamily, durationBuckets, type Family, HistogramFamily, type Value } from './families';
import { type CredentialReloads, credentialReloadGauges, type MigrationStatuses, migrationGauge, type PromClient, processGauges } from './prometheus-gauges';

/** The methods kept as label values; any other is `OTHER`, however many a client invents. */
const METHODS: readonly string[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const OTHER_METHOD = METHODS.length;

/**
 * The key of a route's count series for one status, method and answerer: one small integer,
 * so the lookup per request builds no string. Packed as `(status * 8 + method) * 2 + answerer`:
 * the method index is 0-7 (the seven of `METHODS`, then `OTHER_METHOD`), so 8 keeps it apart from
 * the status, and who answered is one bit (1: upstream, 0: the gateway). An aborted request, which
 * has no status, is status 0. Every combination gets a key of its own.
 */
function countKey(status: number | null, method: number, answeredBy: AnsweredBy): number {
  return ((status ?? 0) * (OTHER_METHOD + 1) + method) * 2 + (answeredBy === 'upstream' ? 1 : 0);
}

/** One route of one version: its duration series, and its count series by status, method and who answered. */
interface RouteSeries {
  duration: Buckets;
  counts: Map<number, Value>;
}
const REFUSAL_KINDS: readonly RefusalKind[] = ['rate_limit', 'token_rate_limit', 'auth_failures'];

/** prom-client's default metrics that are gauges with a `_total` suffix. */
const MISNAMED_DEFAULTS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/** The label value of a request outside the versions, and of one whose caller left before its answer. */
const NONE = 'none';
const ABORTED = 'aborted';

export interface PrometheusOptions {
  /** `UPSTREAM_TIMEOUT_MS`: the buckets reach past it. */
  timeoutMs: number;
  /** The gateway's package version and the dataset's (its `last_modified`, or `upstream`). */
  build: { version: string; dataset: string };
  /** Runtime metrics (event-loop delay, heap, GC): on for the server, off for tests that count series. */
  runtime?: boolean;
}

/**
 * Prometheus metrics with prom-client loaded now: a gateway without `METRICS_PORT` never loads it
 * (a dynamic import of the package itself, which the production bundle keeps dynamic; a static one
 * would load it with the bundle, 13 MB and tens of milliseconds at every start).
 */
export async function prometheusMetrics(options: PrometheusOptions): Promise<PrometheusMetrics> {
  return new PrometheusMetrics(await import('prom-client'), options);
}

/** Prometheus metrics for one gateway process; `text()` is the `/metrics` body. */
export class PrometheusMetrics implements Metrics {
  readonly registry: Registry;
  // Recorded on every request (or backend call): plain-number families (./families).
  private readonly requests: CounterFamily;
  private readonly duration: HistogramFamily;
  private readonly v1Requests: CounterFamily;
  private readonly backendCalls: HistogramFamily;
  private readonly cache: CounterFamily;
  // Rarer events: prom-client's own counters.
  private readonly refusals: Counter<'kind'>;
  private readonly authFailures: Counter<'place' | 'code'>;
  private readonly comparisons: Counter<'route' | 'result'>;
  private readonly dropped: Counter;
  private readonly rejections: Counter<'status'>;
  private readonly breakers = new Map<BackendName, () => BreakerPosition>();
  /**
   * The series of each version and route, found with two lookups by strings the gateway already
   * has, and one by a small number: no key is built per request.
   */
  private readonly routes = new Map<string, Map<string, RouteSeries>>();

  constructor(
    private readonly client: PromClient,
    options: PrometheusOptions,
  ) {
    const { Counter, Registry, collectDefaultMetrics } = client;
    this.registry = new Registry();
    const registers = [this.registry];
    const buckets = durationBuckets(options.timeoutMs);
    const family = <F extends Family>(f: F): F => {
      // The registry reads any metric by `name`, `help`, `type` and `get()`.
      this.registry.registerMetric(f as unknown as Metric);
      return f;
    };
    this.requests = family(
      new CounterFamily(
        'gateway_requests_total',
        'Requests answered, by API version, route template, method, status code and who answered (gateway or upstream).',
      ),
    );
    this.duration = family(
      new HistogramFamily('gateway_request_duration_seconds', 'Time from the first policy to the response, by API version and route template.', buckets),
    );
    this.v1Requests = family(new CounterFamily('gateway_v1_requests_total', 'v1 requests by where their credential was presented (none: without one).'));
    this.backendCalls = family(
      new HistogramFamily(
        'gateway_backend_call_duration_seconds',
        'Backend calls (each attempt, retries included) by backend and outcome: ok, timeout, refused, 5xx, breaker_open, invalid.',
        buckets,
      ),
    );
    this.cache = family(new CounterFamily('gateway_upstream_cache_lookups_total', 'Upstream response cache lookups by result: hit, stale, miss, coalesced.'));
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
    processGauges(client, registers, this.breakers, options.build);
    if (options.runtime !== false) {
      collectDefaultMetrics({ register: this.registry });
      // Gauges named like counters, which `promtool check metrics` refuses; the handle counts add
      // little beside event-loop delay, heap and GC.
      for (const name of MISNAMED_DEFAULTS) this.registry.removeSingleMetric(name);
    }
  }

  requestObserved(o: RequestObservation): void {
    const series = this.routeSeries(o.version ?? NONE, o.route);
    this.duration.into(series.duration, o.durationMs / 1000);
    let method = METHODS.indexOf(o.method);
    if (method < 0) method = OTHER_METHOD;
    const key = countKey(o.status, method, o.answeredBy);
    let count = series.counts.get(key);
    if (!count) series.counts.set(key, (count = this.countSeries(o, method)));
    count.value++;
    if (o.version === 'v1') {
      const place = o.credentialPlace ?? NONE;
      this.v1Requests.add(place, () => ({ credential_place: place }));
    }
  }

  private routeSeries(version: string, route: string): RouteSeries {
    let byRoute = this.routes.get(version);
    if (!byRoute) this.routes.set(version, (byRoute = new Map()));
    let series = byRoute.get(route);
    if (!series) {
      series = { duration: this.duration.series(`${version} ${route}`, () => ({ version, route })), counts: new Map() };
      byRoute.set(route, series);
    }
    return series;
  }

  private countSeries(o: RequestObservation, methodIndex: number): Value {
    const version = o.version ?? NONE;
    const method = METHODS[methodIndex] ?? 'OTHER';
    const status = o.status ?? ABORTED;
    const { route, answeredBy } = o;
    return this.requests.series(`${version} ${route} ${method} ${status} ${answeredBy}`, () => ({ version, route, method, status, answered_by: answeredBy }));
  }

  backendCall(backend: BackendName, outcome: BackendOutcome, durationMs: number): void {
    this.backendCalls.observe(`${backend} ${outcome}`, () => ({ backend, outcome }), durationMs / 1000);
  }

  cacheLookup(result: CacheResult): void {
    this.cache.add(result, () => ({ result }));
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

  /**
   * The credential file's reloads, read when scraped (Node): named and shaped as Prometheus's own
   * `prometheus_config_last_reload_successful` and `..._success_timestamp_seconds`, so the same
   * alert (`== 0`) catches a revoke the gateway could not apply.
   */
  watchCredentialReloads(read: CredentialReloads): void {
    credentialReloadGauges(this.client, this.registry, read);
  }

  /** v1 clients by migration status, counted when scraped (the dashboard's "v1 clients" panel). */
  watchMigration(read: MigrationStatuses): void {
    migrationGauge(this.client, this.registry, read);
  }

  /** The exposition (text format 0.0.4) and its content type. */
  async text(): Promise<{ body: string; contentType: string }> {
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
