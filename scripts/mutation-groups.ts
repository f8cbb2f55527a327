/**
 * What `npm run mutation` mutates, in groups: each group's modules with the Node test files that
 * are about them (`MUTATION_TESTS`), so every mutant runs a few fast tests instead of the whole
 * suite, and a group's results are kept in an incremental file of its own. Every module under the
 * directories `stryker.config.json` names belongs to exactly one group or is listed in `EXCLUDED`
 * with the reason (`test/node/mutation-groups.test.ts` holds that): every module of `src/`.
 */
export interface MutationGroup {
  /** Names the group's reports and incremental file under `reports/mutation/`. */
  name: string;
  /** The modules it mutates (paths from the project's root). */
  mutate: string[];
  /** The Node test files its mutants run (`test/node/*.test.ts`). */
  tests: string[];
  /** Leaves module-level constants unmutated (each of their mutants reruns every test). */
  ignoreStatic?: boolean;
}

const core = (...names: string[]) => names.map((n) => `src/core/${n}.ts`);
const policies = (...names: string[]) => names.map((n) => `src/policies/${n}.ts`);
const routes = (...names: string[]) => names.map((n) => `src/routes/${n}.ts`);
const migration = (...names: string[]) => names.map((n) => `src/migration/${n}.ts`);
const compiled = (...names: string[]) => names.map((n) => `src/services/bundled/compiled/${n}.ts`);
const tests = (...names: string[]) => names.map((n) => `test/node/${n}.test.ts`);

export const GROUPS: MutationGroup[] = [
  { name: 'core-conditional', mutate: core('conditional'), tests: tests('conditional', 'http-date'), ignoreStatic: true },
  { name: 'core-pure', mutate: core('json-body', 'hash', 'iso-time'), tests: tests('json-body', 'etag-hash', 'iso-time'), ignoreStatic: true },
  {
    name: 'core-rest',
    mutate: core(
      'request-trace',
      'text',
      'crypto',
      'trace-context',
      'host-name',
      'list-query',
      'query-string',
      'query',
      'envelope',
      'records',
      'resources',
      'request-id',
      'cache-control',
      'oauth-paths',
    ),
    tests: tests('request-trace', 'text-fold', 'secret-digest', 'traceparent', 'host-name', 'list-query', 'query-string', 'envelope'),
    ignoreStatic: true,
  },
  {
    name: 'errors',
    mutate: [...core('api-error', 'error-codes'), ...policies('render-error')],
    tests: tests('render-error', 'policies', 'openapi-documents', 'v1-changes', 'access-log', 'token-request-details'),
    ignoreStatic: true,
  },
  {
    name: 'policies-auth',
    mutate: policies('auth', 'presented-credential'),
    tests: tests('authentication', 'operator-hints', 'tokens', 'auth-failures', 'policy-chain'),
    ignoreStatic: true,
  },
  { name: 'policies-limits', mutate: policies('auth-failures', 'rate-limit'), tests: tests('auth-failures', 'rate-limit'), ignoreStatic: true },
  { name: 'policies-caching', mutate: policies('caching'), tests: tests('caching'), ignoreStatic: true },
  { name: 'policies-host-transport', mutate: policies('host', 'transport'), tests: tests('host-policy', 'transport-policy'), ignoreStatic: true },
  { name: 'policies-methods-cors', mutate: policies('methods', 'cors'), tests: tests('methods-policy', 'cors-policy'), ignoreStatic: true },
  {
    name: 'policies-small',
    mutate: [
      ...policies(
        'response-headers',
        'response-header-set',
        'request-id',
        'source-address',
        'client-body',
        'head',
        'trace-context',
        'version-context',
        'policy',
      ),
      ...core('redact', 'maybe-promise'),
    ],
    tests: tests('response-headers', 'policy-chain', 'source-address', 'redact', 'request-policies'),
    ignoreStatic: true,
  },
  {
    name: 'policies-access-log',
    mutate: policies('access-log', 'index', 'health-paths'),
    tests: tests('access-log', 'access-line-policy', 'trace-context', 'request-policies', 'policies'),
    ignoreStatic: true,
  },
  {
    name: 'routes-oauth',
    mutate: routes('oauth-client', 'oauth-token', 'health'),
    tests: tests('oauth', 'token-request-details', 'probes'),
    ignoreStatic: true,
  },
  { name: 'routes-readiness', mutate: routes('readiness'), tests: tests('readiness'), ignoreStatic: true },
  {
    name: 'routes-resources',
    mutate: routes('resources', 'page-cache'),
    tests: tests('resource-routes', 'kept-answers', 'conditional', 'plain-query'),
    ignoreStatic: true,
  },
  {
    name: 'versions-v1',
    mutate: [
      'uppercase-enums',
      'flower-or-seed',
      'language-names',
      'pages-of-ten',
      'bare-detail',
      'legacy-credentials',
      'legacy-errors',
      'deprecation',
      'no-cors',
      'no-enumerations',
      'no-migration-plan',
      'total-only-meta',
    ].map((n) => `src/versions/v1/${n}.ts`),
    tests: tests('v1-changes', 'brownouts'),
    ignoreStatic: true,
  },
  {
    name: 'versions-walker',
    mutate: [
      'src/versions/walker.ts',
      'src/versions/index.ts',
      'src/versions/version.ts',
      'src/versions/v1/index.ts',
      'src/versions/v3/bearer-only.ts',
      'src/versions/v3/index.ts',
      'src/versions/v3/preview-only.ts',
    ],
    tests: tests('version-facts'),
  },
  { name: 'migration-compare', mutate: migration('compare', 'sampling'), tests: tests('parity-compare', 'sampling') },
  {
    name: 'migration-plans',
    mutate: [...migration('plan/plan', 'plan/usage', 'plan/usage-store', 'plan/examples'), ...routes('migration-plan')],
    tests: tests('client-plans', 'usage-store'),
  },
  {
    name: 'migration-pure',
    mutate: [...core('intervals', 'route-template'), ...migration('v1-routes', 'forward')],
    tests: tests('legacy-routing', 'migration-config'),
    ignoreStatic: true,
  },
  {
    name: 'migration-gateway',
    mutate: migration('comparator', 'legacy-backend', 'legacy-client', 'policy', 'facade-shadow', 'index'),
    tests: tests('migration-controls'),
    ignoreStatic: true,
  },
  { name: 'compiled-locate-sorted', mutate: compiled('locate', 'sorted'), tests: tests('compiled-dataset', 'search-text', 'first-reads') },
  { name: 'compiled-pieces', mutate: compiled('piece-cache', 'piece-index'), tests: tests('piece-index', 'record-heads', 'kept-answers'), ignoreStatic: true },
  { name: 'compiled-search', mutate: compiled('search'), tests: tests('search-index'), ignoreStatic: true },
  {
    name: 'compiled-records',
    mutate: compiled('resource', 'record-chunk', 'id-chunk', 'fences', 'layout', 'container', 'store'),
    tests: tests('compiled-resource', 'record-heads', 'first-reads', 'file-store', 'piece-index'),
    ignoreStatic: true,
  },
  {
    name: 'rate-limit',
    mutate: ['fixed-window', 'memory-rate-limiter', 'local-first-rate-limiter', 'redis-connection', 'redis-rate-limiter'].map(
      (n) => `src/services/rate-limit/${n}.ts`,
    ),
    tests: tests('rate-limit', 'auth-failures', 'fixed-window', 'local-first-rate-limiter', 'redis-rate-limiter', 'redis-clock-skew', 'redis-fallback'),
  },
  {
    name: 'credentials',
    mutate: ['cached-credential-store', 'credential-store', 'demo-credentials', 'kv-credential-store', 'newline-digest'].map(
      (n) => `src/services/credentials/${n}.ts`,
    ),
    tests: tests('config', 'operator-config', 'cached-credentials', 'kv-credential-store', 'operator-hints', 'tokens'),
  },

  {
    name: 'config',
    mutate: ['describe', 'error', 'index', 'migration', 'parse', 'readers', 'types', 'values', 'warnings'].map((n) => `src/config/${n}.ts`),
    tests: tests('config', 'config-variables', 'operator-config', 'migration-config', 'operator-hints', 'metrics-listener'),
    ignoreStatic: true,
  },
  {
    name: 'openapi',
    mutate: [
      'allow',
      'docs-assets',
      'docs-page',
      'docs-script',
      'document',
      'edit',
      'errors',
      'migration-plan',
      'names',
      'operations',
      'prune',
      'route',
      'schemas',
      'types',
    ].map((n) => `src/openapi/${n}.ts`),
    tests: tests('openapi-agreement', 'openapi-documents', 'openapi', 'methods', 'version-facts'),
    ignoreStatic: true,
  },
  {
    name: 'upstream',
    mutate: [
      'backend-headers',
      'breaker',
      'client',
      'envelope',
      'freshness',
      'index',
      'io',
      'memory-cache',
      'resilience',
      'retry-budget',
      'stale-warnings',
      'upstream-source',
    ].map((n) => `src/services/upstream/${n}.ts`),
    tests: tests(
      'upstream-resilience',
      'upstream-cache',
      'upstream-readiness',
      'upstream-stale',
      'upstream-credentials',
      'upstream-faults',
      'upstream-parity',
      'upstream-modules',
    ),
    ignoreStatic: true,
  },
  {
    name: 'bundled-compile',
    mutate: [
      ...['hot', 'index', 'orders', 'records', 'search', 'spec'].map((n) => `src/services/bundled/compile/${n}.ts`),
      ...['bundled-source', 'dataset-lines', 'result-cache'].map((n) => `src/services/bundled/${n}.ts`),
    ],
    // The compiler's tests compile a sample of the fixture (tens of milliseconds), not the whole (seconds a run):
    // compiled-dataset.test.ts compiles the whole in memory, so it stays in `npm test` only.
    tests: tests('compile-sample', 'dataset-lines', 'cache-bytes', 'fixtures', 'record-index', 'scoped-lists', 'search-text'),
    ignoreStatic: true,
  },
  {
    name: 'app-services',
    mutate: [
      'src/app.ts',
      'src/assemble-services.ts',
      'src/env.ts',
      'src/services/cache/entry-size.ts',
      ...['clock', 'connection', 'lifecycle', 'log', 'metrics', 'rate-limiter', 'record-source', 'request-facts', 'response-cache', 'tokens'].map(
        (n) => `src/services/${n}.ts`,
      ),
    ],
    tests: tests(
      'policies',
      'request-policies',
      'probes',
      'readiness',
      'legacy-readiness',
      'oauth',
      'tokens',
      'metrics',
      'transport-policy',
      'cache-bytes',
      'batched-log',
      'demo-secrets',
    ),
    ignoreStatic: true,
  },
  {
    name: 'node-http',
    mutate: ['connection', 'http-server'].map((n) => `src/node/${n}.ts`),
    tests: tests('hostile-http', 'host', 'transport', 'standard-clients'),
    ignoreStatic: true,
  },
  {
    name: 'node-metrics',
    mutate: ['families', 'log', 'metrics-listener', 'metrics-server', 'otlp', 'prometheus-gauges', 'prometheus'].map((n) => `src/node/${n}.ts`),
    tests: tests('metrics', 'metric-families', 'batched-log', 'metrics-endpoint', 'otlp-export'),
    ignoreStatic: true,
  },
  {
    name: 'node-entry',
    mutate: [
      'src/node.ts',
      ...[
        'backend-fetch',
        'credential-reload',
        'dataset-files',
        'dataset',
        'demo-secrets',
        'digest',
        'docs-assets',
        'listen-errors',
        'rejections',
        'shutdown',
        'usage',
      ].map((n) => `src/node/${n}.ts`),
    ],
    // In process, one module each (the gateway processes of node-entry, graceful-stop, ... cannot see a mutant).
    tests: tests(
      'kept-answers',
      'file-store',
      'live-credentials',
      'metrics-endpoint',
      'drain',
      'rejections',
      'listen-errors',
      'demo-secrets',
      'usage',
      'backend-fetch',
      'dataset-open',
      'node-main',
    ),
    ignoreStatic: true,
  },
];

/** Modules no group mutates, and why. */
const WORKERD_ONLY = 'runs only in workerd; its tests are in the workerd project, which Stryker’s vitest runner cannot run';
export const EXCLUDED: Record<string, string> = {
  'src/services/rate-limit/durable-object-rate-limiter.ts': WORKERD_ONLY,
  'src/services/cache/cache-api-response-cache.ts': `the Cache API response cache of the Workers entry: ${WORKERD_ONLY}`,
  'src/worker.ts': `the Workers entry: ${WORKERD_ONLY}`,
  'src/migration/plan/durable-object-usage-store.ts': `the Workers store of clients' usage: ${WORKERD_ONLY}`,
  ...Object.fromEntries(
    ['analytics', 'connection', 'dataset', 'docs-assets', 'env.d', 'gateway', 'misconfigured', 'rate-limiter-object', 'usage-object'].map((n) => [
      `src/worker/${n}.ts`,
      `part of the Workers entry: ${WORKERD_ONLY}`,
    ]),
  ),
};
