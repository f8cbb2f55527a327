import type { Context } from 'hono';
import type { ApiError } from './core/api-error';
import type { Config } from './config';
import type { MaybePromise } from './core/maybe-promise';
import type { RequestTrace } from './core/request-trace';
import type { LegacyBackend } from './migration/legacy-backend';
import type { Lifecycle } from './services/lifecycle';
import type { LogLine } from './services/log';
import type { Metrics } from './services/metrics';
import type { Clock } from './services/clock';
import type { DocsAssets } from './openapi/docs-assets';
import type { ConnectionFacts } from './services/connection';
import type { RequestHeader } from './services/request-header';
import type { CredentialStore, Principal } from './services/credentials/credential-store';
import type { RateLimiter } from './services/rate-limit/rate-limiter';
import type { UsageStore } from './migration/plan/usage-store';
import type { RecordRequest } from './services/request-facts';
import type { RecordSource } from './services/record-source';
import type { TokenService } from './services/tokens';
import type { ResponseHeaders } from './policies/response-header-set';
import type { Version } from './versions/version';

/** Every service the app uses, built once per app by an entry. */
export interface Services {
  source: RecordSource;
  credentials: CredentialStore;
  tokens: TokenService;
  clock: Clock;
  log(line: LogLine): void;
  /** Requests per bucket per window: in memory on Node, a Durable Object on Workers. */
  rateLimiter: RateLimiter;
  /** TLS and peer address of a request, as only the runtime's entry can know them. */
  connection: ConnectionFacts;
  /** A request header by its lower-case name, as Fetch gives it: on Node from what Node has parsed. */
  header: RequestHeader;
  /** The caller closed its connection before its answer was written (docs/reference/requests.md: logged as aborted). */
  clientGone(c: Context<AppEnv>): boolean;
  /** SHA-256 hex of a presented secret: WebCrypto by default, a synchronous hash where the runtime has one (Node). */
  digest(text: string): MaybePromise<string>;
  /** `LEGACY_V1_URL`'s backend (docs/reference/migration.md), when one is configured. */
  legacy?: LegacyBackend;
  /**
   * Runs `task` once the caller has its answer, without delaying it: after the Node response is
   * written, `waitUntil` on Workers. `task` never throws.
   */
  afterResponse(c: Context<AppEnv>, task: () => Promise<void>): void;
  /** The docs page's scripts and styles, from an npm package the entry bundles; absent: no `/docs`. */
  docsAssets?: DocsAssets;
  /** Whether the process is stopping (Node's graceful stop); absent: it never stops on its own. */
  lifecycle?: Lifecycle;
  /** Takes each request's facts once it is answered (Workers: the `METRICS` Analytics Engine binding); absent: nothing is recorded. */
  recordRequest?: RecordRequest;
  /** What each client did, for its self-service migration plan; absent: nothing is counted and every plan is empty. */
  usage?: UsageStore;
  /** Rates, errors and latency (docs/reference/observability.md): Prometheus on Node, nothing unless configured. */
  metrics: Metrics;
}

/** Where and how the caller's credential arrived, for the log (`apiKey`, `bearer`, `v1:query`, ...). */
export interface Caller {
  principal: Principal;
  credential: string;
}

/** The one typed environment of the Hono app. */
export interface AppEnv {
  Variables: {
    requestId: string;
    /** The request's trace (docs/reference/observability.md): its id, and what its backends did. */
    trace: RequestTrace;
    /** The caller's own `Svc-Request-Id`, when it is a valid token: logged, never the gateway's id. */
    clientRequestId?: string;
    /** When the request reached the policies (`performance.now()`), for the access line's duration. */
    startedAt: number;
    /** The API version the path belongs to, and the base path the caller used (`/api/v1`). */
    version: Version | undefined;
    base: string;
    /** The effective host, once the host policy has let it through: the only one a `Location` is built from. */
    host: string;
    caller: Caller | undefined;
    /** Inside a brownout: its 410, answered once authentication has named the caller. */
    brownout?: ApiError;
    /** Extra facts for the access-log line, e.g. `apiKeyFromBrowser`. */
    logFlags: string[];
    /** The log label of a credential the failure throttle refused unchecked (its place, never the secret). */
    throttledCredential?: string;
    /** A refused credential, for the access-log line (docs/reference/requests.md); never the secret. */
    authFailure?: AuthFailureLog;
    /** The policies' response headers, merged once into the response (src/policies/response-headers.ts). */
    responseHeaders?: ResponseHeaders;
  };
}

/** What the access line says of a refused credential. */
export interface AuthFailureLog {
  /** `authorization`, `x-api-key`, `x-key`, `query:key`, `query:token`, `oauth:basic`, `oauth:body`. */
  place: string;
  code: string;
  client_id: string | null;
  source_address: string | null;
}

export interface AppDeps {
  config: Config;
  services: Services;
}
