/** The Workers bindings of `wrangler.toml`: `[vars]` and secrets (strings), KV and Durable Objects. */
declare namespace Cloudflare {
  interface Env {
    CREDENTIALS?: KVNamespace;
    /** The compiled dataset's pieces (Workers Static Assets, wrangler.toml `[assets]`). */
    ASSETS?: Fetcher;
    RATE_LIMITER?: DurableObjectNamespace<import('./rate-limiter-object').RateLimiterObject>;
    /** One Durable Object per client: what it did, for its self-service migration plan. */
    USAGE?: DurableObjectNamespace<import('./usage-object').UsageObject>;
    /** Workers Analytics Engine: one data point per request when bound (docs/workers.md). */
    METRICS?: AnalyticsEngineDataset;
    /** `allow` in the local configuration only: demo credentials and a per-isolate signing secret may stand in. */
    DEMO_CREDENTIALS?: string;
    SERVICE_NAME?: string;
    DOCS_URL?: string;
    TRUST_PROXY?: string;
    TRUST_TRACEPARENT?: string;
    HTTPS_REDIRECT_UNTIL?: string;
    V1_DEPRECATED_AT?: string;
    V1_SUNSET?: string;
    RATE_LIMIT_PER_MINUTE?: string;
    TOKEN_RATE_LIMIT_PER_MINUTE?: string;
    /** `local` (default) or `exact`: where rate limits are decided (docs/reference/operations.md). */
    RATE_LIMIT_MODE?: string;
    PUBLIC_HOSTS?: string;
    AUTH_FAILURES_PER_MINUTE?: string;
    UPSTREAM_URL?: string;
    LEGACY_V1_URL?: string;
    /** Secret: `wrangler secret put LEGACY_V1_AUTHORIZATION`. */
    LEGACY_V1_AUTHORIZATION?: string;
    V1_ANSWER?: string;
    V1_COMPARE_PERCENT?: string;
    V1_COMPARE_IGNORE?: string;
    V1_BROWNOUTS?: string;
    /** Secret: `wrangler secret put UPSTREAM_AUTHORIZATION` (local: `.dev.vars`). */
    UPSTREAM_AUTHORIZATION?: string;
    /** Secret: `wrangler secret put TOKEN_SIGNING_SECRET` (local: `.dev.vars`). */
    TOKEN_SIGNING_SECRET?: string;
  }
  interface GlobalProps {
    mainModule: typeof import('../worker');
    durableNamespaces: 'RateLimiterObject' | 'UsageObject';
  }
}
interface Env extends Cloudflare.Env {}

/** The index of the compiled dataset's pieces (`npm run data:compile`), bundled into the worker. */
declare module '*/generated/taxa.index.json' {
  const index: import('../services/bundled/compiled/piece-index').PieceIndex;
  export default index;
}

/** The pieces the worker carries itself (`npm run data:compile`), a Data module (see wrangler.toml). */
declare module '*/generated/hot.bin' {
  const bytes: ArrayBuffer;
  export default bytes;
}

/** The migration plans' examples (`npm run docs:migration`), bundled into the worker as JSON. */
declare module '*/examples.json' {
  const examples: Record<string, import('../migration/plan/plan').PlanExample>;
  export default examples;
}

/** The docs page's UI files, imported as Text modules (see wrangler.toml). */
declare module 'swagger-ui-dist/swagger-ui-bundle.js' {
  const text: string;
  export default text;
}
declare module 'swagger-ui-dist/swagger-ui.css' {
  const text: string;
  export default text;
}
