/**
 * What `npm run mutation` mutates, in groups: each group's modules with the Node test files that
 * are about them (`MUTATION_TESTS`), so every mutant runs a few fast tests instead of the whole
 * suite, and a group's results are kept in an incremental file of its own. Every module under the
 * directories `stryker.config.json` names belongs to exactly one group or is listed in `EXCLUDED`
 * with the reason (`test/scripts/mutation-groups.test.ts` holds that): every module of `src/`.
 */
export interface MutationGroup {
  /** Names the group's reports and incremental file under `reports/mutation/`. */
  name: string;
  /** The modules it mutates (paths from the project's root). */
  mutate: string[];
  /** The Node test files its mutants run, named by their path below `test/` without `.test.ts`. */
  tests: string[];
  /** Leaves module-level constants unmutated (each of their mutants reruns every test). */
  ignoreStatic?: boolean;
}

const core = (...names: string[]) => names.map((n) => `src/core/${n}.ts`);
const policies = (...names: string[]) => names.map((n) => `src/policies/${n}.ts`);
const routes = (...names: string[]) => names.map((n) => `src/routes/${n}.ts`);
const migration = (...names: string[]) => names.map((n) => `src/migration/${n}.ts`);
const compiled = (...names: string[]) => names.map((n) => `src/services/bundled/compiled/${n}.ts`);
const tests = (...names: string[]) => [...new Set(names)].map((n) => `test/${n}.test.ts`);

export const GROUPS: MutationGroup[] = [
  { name: 'core-conditional', mutate: core('conditional'), tests: tests('node/core/conditional', 'node/core/conditional'), ignoreStatic: true },
  {
    name: 'core-pure',
    mutate: core('json-body', 'hash', 'iso-time', 'bounded-text'),
    tests: tests('node/core/json-body', 'node/core/hash', 'node/core/iso-time', 'node/core/bounded-text'),
    ignoreStatic: true,
  },
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
    tests: tests(
      'node/core/request-trace',
      'node/core/text',
      'node/core/crypto',
      'node/core/trace-context',
      'node/core/host-name',
      'node/core/list-query',
      'node/core/query-string',
      'node/core/envelope',
    ),
    ignoreStatic: true,
  },
  {
    name: 'errors',
    mutate: [...core('api-error', 'error-codes'), ...policies('render-error')],
    tests: tests(
      'node/policies/render-error',
      'node/policies/index',
      'node/openapi/document',
      'node/versions/v1/index',
      'node/policies/access-log',
      'node/routes/oauth-client',
    ),
    ignoreStatic: true,
  },
  {
    name: 'policies-auth',
    mutate: policies('auth', 'presented-credential'),
    tests: tests(
      'node/services/credentials/credential-store',
      'node/services/credentials/operator-hints',
      'node/services/tokens',
      'node/policies/auth-failures',
      'node/policies/policy',
    ),
    ignoreStatic: true,
  },
  {
    name: 'policies-limits',
    mutate: policies('auth-failures', 'rate-limit'),
    tests: tests('node/policies/auth-failures', 'node/services/rate-limit/memory-rate-limiter'),
    ignoreStatic: true,
  },
  { name: 'policies-caching', mutate: policies('caching'), tests: tests('node/policies/caching'), ignoreStatic: true },
  { name: 'policies-host-transport', mutate: policies('host', 'transport'), tests: tests('node/policies/host', 'node/policies/transport'), ignoreStatic: true },
  { name: 'policies-methods-cors', mutate: policies('methods', 'cors'), tests: tests('node/policies/methods', 'node/policies/cors'), ignoreStatic: true },
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
    tests: tests('node/policies/response-headers', 'node/policies/policy', 'node/policies/source-address', 'node/core/redact', 'node/policies/request-id'),
    ignoreStatic: true,
  },
  {
    name: 'policies-access-log',
    mutate: policies('access-log', 'index', 'health-paths'),
    tests: tests(
      'node/policies/access-log',
      'node/policies/access-log',
      'node/policies/trace-context.process',
      'node/policies/request-id',
      'node/policies/index',
    ),
    ignoreStatic: true,
  },
  {
    name: 'routes-oauth',
    mutate: routes('oauth-client', 'oauth-token', 'health'),
    tests: tests('node/routes/oauth-token', 'node/routes/oauth-client', 'node/routes/health'),
    ignoreStatic: true,
  },
  { name: 'routes-readiness', mutate: routes('readiness'), tests: tests('node/routes/readiness'), ignoreStatic: true },
  {
    name: 'routes-resources',
    mutate: routes('resources', 'page-cache'),
    tests: tests('node/routes/resources', 'node/routes/page-cache', 'node/core/conditional', 'node/routes/page-cache'),
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
    tests: tests('node/versions/v1/index', 'node/policies/version-context'),
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
    tests: tests('node/versions/walker'),
  },
  { name: 'migration-compare', mutate: migration('compare', 'sampling'), tests: tests('node/migration/compare', 'node/migration/sampling') },
  {
    name: 'migration-plans',
    mutate: [...migration('plan/plan', 'plan/usage', 'plan/usage-store', 'plan/examples'), ...routes('migration-plan')],
    tests: tests('node/migration/plan/plan.process', 'node/migration/plan/usage-store'),
  },
  {
    name: 'migration-pure',
    mutate: [...core('intervals', 'route-template'), ...migration('v1-routes', 'forward')],
    tests: tests('node/migration/v1-routes', 'node/config/migration'),
    ignoreStatic: true,
  },
  {
    name: 'migration-gateway',
    mutate: migration('comparator', 'legacy-backend', 'legacy-client', 'policy', 'facade-shadow', 'index'),
    tests: tests('node/migration/comparator'),
    ignoreStatic: true,
  },
  {
    name: 'compiled-locate-sorted',
    mutate: compiled('locate', 'sorted'),
    tests: tests('node/services/bundled/bundled-source', 'node/services/bundled/search-text', 'node/services/bundled/compiled/first-reads'),
  },
  {
    name: 'compiled-pieces',
    mutate: compiled('piece-cache', 'piece-index'),
    tests: tests('node/services/bundled/compiled/piece-index', 'node/services/bundled/compiled/layout', 'node/routes/page-cache'),
    ignoreStatic: true,
  },
  { name: 'compiled-search', mutate: compiled('search'), tests: tests('node/services/bundled/compiled/search'), ignoreStatic: true },
  {
    name: 'compiled-records',
    mutate: compiled('resource', 'record-chunk', 'id-chunk', 'fences', 'layout', 'container', 'store'),
    tests: tests(
      'node/services/bundled/compiled/resource',
      'node/services/bundled/compiled/layout',
      'node/services/bundled/compiled/first-reads',
      'node/services/bundled/compiled/store',
      'node/services/bundled/compiled/piece-index',
    ),
    ignoreStatic: true,
  },
  {
    name: 'rate-limit',
    mutate: ['fixed-window', 'memory-rate-limiter', 'local-first-rate-limiter', 'redis-connection', 'redis-rate-limiter'].map(
      (n) => `src/services/rate-limit/${n}.ts`,
    ),
    tests: tests(
      'node/services/rate-limit/memory-rate-limiter',
      'node/policies/auth-failures',
      'node/services/rate-limit/fixed-window',
      'node/services/rate-limit/local-first-rate-limiter',
      'node/services/rate-limit/redis-rate-limiter',
      'node/services/rate-limit/redis-clock-skew',
      'node/services/rate-limit/redis-fallback',
    ),
  },
  {
    name: 'credentials',
    mutate: ['cached-credential-store', 'credential-store', 'demo-credentials', 'kv-credential-store', 'newline-digest'].map(
      (n) => `src/services/credentials/${n}.ts`,
    ),
    tests: tests(
      'node/config/index',
      'node/config/describe',
      'node/services/credentials/cached-credential-store',
      'node/services/credentials/kv-credential-store',
      'node/services/credentials/operator-hints',
      'node/services/tokens',
    ),
  },

  {
    name: 'config',
    mutate: ['describe', 'error', 'index', 'migration', 'parse', 'readers', 'types', 'values', 'warnings'].map((n) => `src/config/${n}.ts`),
    tests: tests(
      'node/config/index',
      'node/config/readers',
      'node/config/describe',
      'node/config/migration',
      'node/services/credentials/operator-hints',
      'node/node/metrics-listener.process',
    ),
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
      'names',
      'operations',
      'plan-schemas',
      'prune',
      'route',
      'schemas',
      'types',
    ].map((n) => `src/openapi/${n}.ts`),
    tests: tests('node/openapi/edit', 'node/openapi/document', 'node/openapi/route', 'node/policies/methods', 'node/versions/walker'),
    ignoreStatic: true,
  },
  {
    name: 'upstream',
    mutate: [
      'backend-headers',
      'breaker',
      'client',
      'envelope-check',
      'freshness',
      'index',
      'io',
      'resilience',
      'retry-budget',
      'stale-warnings',
      'upstream-source',
    ]
      .map((n) => `src/services/upstream/${n}.ts`)
      .concat('src/services/cache/memory-response-cache.ts'),
    tests: tests(
      'node/services/upstream/resilience',
      'node/services/cache/memory-response-cache',
      'node/services/upstream/index',
      'node/services/upstream/stale-warnings',
      'node/services/upstream/credentials',
      'node/services/upstream/client',
      'node/services/upstream/upstream-source',
      'node/services/upstream/envelope-check',
    ),
    ignoreStatic: true,
  },
  {
    name: 'bundled-compile',
    mutate: [
      ...['hot', 'index', 'orders', 'records', 'search-index', 'spec'].map((n) => `src/services/bundled/compile/${n}.ts`),
      ...['bundled-source', 'dataset-lines', 'result-cache'].map((n) => `src/services/bundled/${n}.ts`),
    ],
    // The compiler's tests compile a sample of the fixture (tens of milliseconds), not the whole (seconds a run):
    // compiled-dataset.test.ts compiles the whole in memory, so it stays in `npm test` only.
    tests: tests(
      'node/services/bundled/compile/index',
      'node/services/bundled/dataset-lines',
      'node/services/cache/entry-size',
      'scripts/build-data/fixtures',
      'node/core/records',
      'node/routes/enumerations',
      'node/services/bundled/search-text',
    ),
    ignoreStatic: true,
  },
  {
    name: 'app-services',
    mutate: [
      'src/app.ts',
      'src/assemble-services.ts',
      'src/env.ts',
      'src/services/cache/entry-size.ts',
      'src/services/cache/response-cache.ts',
      'src/services/rate-limit/rate-limiter.ts',
      ...['clock', 'connection', 'lifecycle', 'log', 'metrics', 'record-source', 'request-facts', 'request-header', 'tokens'].map(
        (n) => `src/services/${n}.ts`,
      ),
    ],
    tests: tests(
      'node/policies/index',
      'node/policies/request-id',
      'node/routes/health',
      'node/routes/readiness',
      'node/migration/legacy-backend',
      'node/routes/oauth-token',
      'node/services/tokens',
      'node/node/prometheus',
      'node/policies/transport',
      'node/services/cache/entry-size',
      'node/node/log',
      'node/node/demo-secrets',
    ),
    ignoreStatic: true,
  },
  {
    name: 'node-http',
    mutate: ['connection', 'http-server', 'request-header'].map((n) => `src/node/${n}.ts`),
    tests: tests('node/node/http-server', 'node/node/request-header', 'node/policies/host', 'node/policies/transport', 'node/node/standard-clients'),
    ignoreStatic: true,
  },
  {
    name: 'node-metrics',
    mutate: ['families', 'log', 'metrics-listener', 'metrics-server', 'otlp', 'prometheus-gauges', 'prometheus'].map((n) => `src/node/${n}.ts`),
    tests: tests('node/node/prometheus', 'node/node/families', 'node/node/log', 'node/node/metrics-server', 'node/node/otlp'),
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
        'arguments',
      ].map((n) => `src/node/${n}.ts`),
    ],
    // In process, one module each (the gateway processes of node-entry, graceful-stop, ... cannot see a mutant).
    tests: tests(
      'node/routes/page-cache',
      'node/services/bundled/compiled/store',
      'node/node/credential-reload',
      'node/node/metrics-server',
      'node/node/shutdown',
      'node/node/rejections',
      'node/node/listen-errors',
      'node/node/demo-secrets',
      'node/node/arguments',
      'node/node/backend-fetch',
      'node/node/dataset',
      'node/node',
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
