/**
 * What the gateway reports about itself (docs/reference/observability.md), as one small service: the policies,
 * the backend clients and the Node server call it where they already know the facts. It imports
 * only the request trace's types, so any runtime can implement it (Node: Prometheus through prom-client, wired in
 * the Node entry), and the app core never sees how.
 */

/** Who made the response: the gateway itself (refusals, errors, bundled data, a cached copy) or a backend's answer. */
export type AnsweredBy = 'gateway' | 'upstream';

// The backends, how a call ended and how the cache met a lookup are the request trace's terms.
export type { BackendName, BackendOutcome, CacheResult } from '../core/request-trace';
import type { BackendCall, BackendName, BackendOutcome, CacheResult } from '../core/request-trace';

export type BreakerPosition = 'closed' | 'open' | 'half-open';

/**
 * Which limit refused a request with 429: the caller's rate limit, the token endpoint's per
 * client, or failed authentications from its address or for its OAuth client.
 */
export type RefusalKind = 'rate_limit' | 'token_rate_limit' | 'auth_failures';

export type ComparisonResult = 'same' | 'different' | 'not_made';

/** One request as the gateway answered it: the one observation every runtime records (docs/reference/observability.md). */
export interface RequestObservation {
  /** `v1`, `v2`, `v3`; null outside the versioned paths (health, docs, token endpoint). */
  version: string | null;
  /** The route template (`/species/{id}`; the method is its own dimension), a registered path (`/healthz`), or `UNMATCHED_ROUTE`: never the raw path. */
  route: string;
  /** The request method as sent; a recorder keeps only the methods it knows (others as one value). */
  method: string;
  /** The status answered; null when the caller left before its answer. */
  status: number | null;
  answeredBy: AnsweredBy;
  /** The whole request as the gateway saw it, from the first policy to the response. */
  durationMs: number;
  /** The last call to a backend made for it (its time that of all of them); undefined when none was called. */
  backend: BackendCall | undefined;
  /** How the upstream cache met its last lookup; undefined when none was made. */
  cache: CacheResult | undefined;
  /** Where the credential came from (`apiKey`, `bearer`, `v1:query`, ...); null without one. */
  credentialPlace: string | null;
  /**
   * Who called (`project:<id>`, `member:<id>`), for per-project usage where a store can hold it
   * (the Analytics Engine index). Never a Prometheus label.
   */
  subject: string | null;
}

/** The route of every path no route has: one value, however many paths are tried. */
export const UNMATCHED_ROUTE = 'unmatched';

/** The service. Every method is cheap and never throws; a runtime without a store for one records nothing. */
export interface Metrics {
  /** Once per request, by the access-log policy, after the response exists. */
  requestObserved(o: RequestObservation): void;
  /** Once per backend attempt (retries are attempts), and once per call the breaker stopped. */
  backendCall(backend: BackendName, outcome: BackendOutcome, durationMs: number): void;
  /** Once per upstream cache lookup. */
  cacheLookup(result: CacheResult): void;
  /** A breaker's state is read when metrics are collected (it turns half-open by time alone). */
  watchBreaker(backend: BackendName, state: () => BreakerPosition): void;
  /** A 429 from a limit. */
  refused(kind: RefusalKind): void;
  /** A presented credential refused, by where it arrived and the error code. */
  authFailure(place: string, code: string): void;
  /** One v1 shadow comparison by route template and how it came out. */
  comparison(route: string, result: ComparisonResult): void;
  /** Node: a connection closed at once because `MAX_CONNECTIONS` were open. */
  connectionRefused(): void;
  /** Node: a request its HTTP layer refused before the app saw it, by the status answered. */
  httpRejection(status: number): void;
}

const nothing = () => {};

/** Metrics nowhere: the default when `METRICS_PORT` is unset (Node) or no `METRICS` binding exists (Workers). */
export const noMetrics: Metrics = {
  requestObserved: nothing,
  backendCall: nothing,
  cacheLookup: nothing,
  watchBreaker: nothing,
  refused: nothing,
  authFailure: nothing,
  comparison: nothing,
  connectionRefused: nothing,
  httpRejection: nothing,
};
