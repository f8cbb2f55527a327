/**
 * The layers of src/, kept by dependency-cruiser (`npm run lint`). From the ground up:
 *
 *   core/            pure functions, types and constants; imports only core/
 *   config/          the typed configuration; imports only core/ and itself
 *   services/        what the app uses (records, credentials, limiters, upstream, log)
 *   env.ts           the app's typed environment: type imports of leaf modules only
 *   versions/ migration/ openapi/
 *   policies/        the policy chain and the one error renderer
 *   routes/
 *   app.ts assemble-services.ts   what both entries call
 *   node.ts node/ worker.ts worker/   the entries: the only modules with runtime APIs
 *
 * A module may import its own layer and those below it. One exception is named below: the
 * migration controls (migration/index.ts, policy.ts, facade-shadow.ts) are middleware mounted
 * after the policies, and use the access check and the error renderer of policies/.
 */
const ENTRIES = '^src/(node\\.ts|node/|worker\\.ts|worker/)';
const MIGRATION_CONTROLS = '^src/migration/(index|policy|facade-shadow)\\.ts$';

/** `from` may import nothing in `to` (paths under src/). */
const below = (name, comment, from, to, extra = {}) => ({
  name,
  comment,
  severity: 'error',
  from: { path: from, ...extra.from },
  to: { path: to, ...extra.to },
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import circle: a circle makes every module in it load, and change, with every other.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-imports-only-core',
      comment: 'core/ is the ground floor: it imports nothing outside core/, not even a package.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { pathNot: '^src/core/' },
    },
    {
      name: 'config-imports-only-core',
      comment: 'The configuration is parsed from strings: it needs core/ and nothing above.',
      severity: 'error',
      from: { path: '^src/config(\\.ts$|/)' },
      to: { path: '^src/', pathNot: '^src/(core/|config(\\.ts$|/))' },
    },
    {
      name: 'only-entries-import-entries',
      comment: 'The entries (node.ts, node/, worker.ts, worker/) compose the rest; nothing else imports them.',
      severity: 'error',
      from: { path: '^src/', pathNot: ENTRIES },
      to: { path: ENTRIES },
    },
    // The Node entry and the Workers entry share only what is below them, in both directions.
    ...[
      ['node', '^src/(node\\.ts|node/)', '^src/(worker\\.ts|worker/)'],
      ['worker', '^src/(worker\\.ts|worker/)', '^src/(node\\.ts|node/)'],
    ].map(([entry, from, to]) => ({
      name: `${entry}-entry-apart`,
      comment: 'The Node entry and the Workers entry share only what is below them.',
      severity: 'error',
      from: { path: from },
      to: { path: to },
    })),
    {
      name: 'runtime-apis-only-in-entries',
      comment: 'Only the entries import a runtime API (node:*, cloudflare:*); the rest runs on both.',
      severity: 'error',
      from: { path: '^src/', pathNot: ENTRIES },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'cloudflare-apis-only-in-entries',
      comment: 'Only the entries import a runtime API (node:*, cloudflare:*); the rest runs on both.',
      severity: 'error',
      from: { path: '^src/', pathNot: ENTRIES },
      to: { path: '^cloudflare:' },
    },
    {
      name: 'env-composes-types-only',
      comment: 'env.ts composes the app environment from leaf modules: type imports only, no code.',
      severity: 'error',
      from: { path: '^src/env\\.ts$' },
      to: { path: '^src/', dependencyTypesNot: ['type-only'] },
    },
    below(
      'services-below-the-app',
      'services/ knows nothing of env.ts, the versions, migration, openapi, the policies, routes or the app.',
      '^src/services/',
      '^src/(env\\.ts|versions/|migration/|openapi/|policies/|routes/|app\\.ts|assemble-services\\.ts)',
    ),
    below(
      'versions-migration-openapi-below-policies',
      'versions/, migration/ and openapi/ sit below the policies (the migration controls excepted, see above).',
      '^src/(versions|migration|openapi)/',
      '^src/(policies/|routes/|app\\.ts|assemble-services\\.ts)',
      { from: { pathNot: MIGRATION_CONTROLS } },
    ),
    below(
      'migration-controls-use-only-access-and-errors',
      'The migration controls take from policies/ only the access check and the error renderer.',
      MIGRATION_CONTROLS,
      '^src/(policies/|routes/|app\\.ts|assemble-services\\.ts)',
      { to: { pathNot: '^src/policies/(auth|render-error)\\.ts$' } },
    ),
    below('policies-below-routes', 'The policies run around any route; they import none.', '^src/policies/', '^src/(routes/|app\\.ts|assemble-services\\.ts)'),
    below('routes-below-the-app', 'Routes are mounted by the app; they do not import it.', '^src/routes/', '^src/(app\\.ts|assemble-services\\.ts)'),
    {
      name: 'not-to-unresolvable',
      comment: 'Every import resolves (a moved module leaves no dangling import behind).',
      severity: 'error',
      from: { path: '^src/' },
      to: { couldNotResolve: true, pathNot: '^cloudflare:' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a circle of types is still a circle to read.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
