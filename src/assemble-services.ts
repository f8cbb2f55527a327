import type { Config } from './config';
import { sha256Hex } from './core/crypto';
import type { MaybePromise } from './core/maybe-promise';
import type { Services } from './env';
import { createLegacyClient } from './migration/legacy-client';
import type { Clock } from './services/clock';
import { systemClock } from './services/clock';
import type { DocsAssets } from './openapi/docs-assets';
import { signalGone, urlConnection, type ClientGone, type ConnectionFacts } from './services/connection';
import { fetchHeader, type RequestHeader } from './services/request-header';
import type { Lifecycle } from './services/lifecycle';
import type { CredentialStore } from './services/credentials/credential-store';
import { MemoryRateLimiter } from './services/rate-limit/memory-rate-limiter';
import { noMetrics, type Metrics } from './services/metrics';
import type { RateLimiter } from './services/rate-limit/rate-limiter';
import type { RecordSource } from './services/record-source';
import type { UsageStore } from './migration/plan/usage-store';
import type { RecordRequest } from './services/request-facts';
import { HmacTokenService } from './services/tokens';
import { consoleLog, type LogLine } from './services/log';
import type { LegacyBackend } from './migration/legacy-backend';

export interface ServiceParts {
  source: RecordSource;
  credentials: CredentialStore;
  clock?: Clock;
  log?: (line: LogLine) => void;
  /** Defaults to an in-memory limiter (one process); the Workers entry passes a Durable Object one. */
  rateLimiter?: RateLimiter;
  /** Defaults to the request URL's scheme with no peer address; the Node entry reads its socket. */
  connection?: ConnectionFacts;
  /** Defaults to the request's `Headers`; the Node entry reads what Node has parsed. */
  header?: RequestHeader;
  /** Defaults to the request's abort signal; the Node entry reads its response stream (no AbortController per request). */
  clientGone?: ClientGone;
  /** Defaults to WebCrypto's SHA-256; the Node entry passes its synchronous one (no thread-pool hop). */
  digest?: (text: string) => MaybePromise<string>;
  /** Defaults to a client of `LEGACY_V1_URL` when it is set. */
  legacy?: LegacyBackend;
  /** How that client calls the backend; defaults to the runtime's `fetch` (the Node entry passes one without its defaults' headers). */
  backendFetch?: typeof fetch;
  /** Defaults to a task started on the next turn of the event loop; the entries pass their runtime's way. */
  afterResponse?: Services['afterResponse'];
  /** The docs page's assets, loaded by the entry (Node: from node_modules; Workers: bundled). */
  docsAssets?: DocsAssets;
  /** Node's graceful stop switches it to stopping; `/readyz` reads it. */
  lifecycle?: Lifecycle;
  /** What each client did (Node: the process's memory; Workers: a Durable Object per client); absent, nothing is counted. */
  usage?: UsageStore;
  /** Where each request's facts go (Workers: Analytics Engine); absent, nowhere. */
  recordRequest?: RecordRequest;
  /**
   * Used when `TOKEN_SIGNING_SECRET` is unset; the entry supplies a random one and warns. A
   * function is called on first use (the Workers global scope may not draw random values).
   */
  fallbackSigningSecret: string | (() => string);
  /** Defaults to none; the Node entry passes Prometheus metrics when `METRICS_PORT` is set. */
  metrics?: Metrics;
}

/** Assembles the services an entry chose into the set `createApp` takes. */
export function assembleServices(config: Config, parts: ServiceParts): Services {
  const clock = parts.clock ?? systemClock;
  const log = parts.log ?? consoleLog;
  const metrics = parts.metrics ?? noMetrics;
  return {
    source: parts.source,
    credentials: parts.credentials,
    clock,
    tokens: new HmacTokenService(config.tokenSigningSecret ?? parts.fallbackSigningSecret, clock),
    log,
    rateLimiter: parts.rateLimiter ?? new MemoryRateLimiter(clock),
    connection: parts.connection ?? urlConnection,
    header: parts.header ?? fetchHeader,
    clientGone: parts.clientGone ?? signalGone,
    digest: parts.digest ?? sha256Hex,
    legacy: parts.legacy ?? createLegacyClient(config, { clock, log, metrics, fetch: parts.backendFetch }),
    afterResponse: parts.afterResponse ?? ((_c, task) => void setTimeout(() => void task(), 0)),
    ...(parts.docsAssets ? { docsAssets: parts.docsAssets } : {}),
    ...(parts.lifecycle ? { lifecycle: parts.lifecycle } : {}),
    ...(parts.recordRequest ? { recordRequest: parts.recordRequest } : {}),
    ...(parts.usage ? { usage: parts.usage } : {}),
    metrics,
  };
}

/** A random secret for processes started without `TOKEN_SIGNING_SECRET`. */
export function randomSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}
