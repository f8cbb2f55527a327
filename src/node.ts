/**
 * The Node entry (staging, self-hosting): the composition of src/node/, which with this file holds
 * the only modules that touch Node APIs.
 */
import { readFileSync, realpathSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { assembleServices, randomSecret } from './assemble-services';
import { createApp } from './app';
import { ConfigError, configWarnings, describeConfig, parseConfig } from './config';
import { nodeBackendFetch } from './node/backend-fetch';
import { afterNodeResponse, nodeClientGone, nodeConnection } from './node/connection';
import { nodeHeader } from './node/request-header';
import { liveCredentials } from './node/credential-reload';
import { type DatasetCheck, type DatasetFiles, openBundledSource, openFileStore } from './node/dataset';
import { DatasetError } from './node/dataset-files';
import { demoSecretsBeyondLoopback } from './node/demo-secrets';
import { nodeDigest } from './node/digest';
import { nodeDocsAssets } from './node/docs-assets';
import { createGatewayServer } from './node/http-server';
import { listenError, probeHost } from './node/listen-errors';
import { batchedStdoutLog } from './node/log';
import { metricsListener } from './node/metrics-listener';
import { gracefulStop, listenForStop } from './node/shutdown';
import { readArguments } from './node/arguments';
import { MemoryUsageStore } from './migration/plan/usage-store';
import type { BundledSource } from './services/bundled/bundled-source';
import type { SectionStore } from './services/bundled/compiled/store';
import { systemClock } from './services/clock';
import { stoppableLifecycle } from './services/lifecycle';
import { consoleLog } from './services/log';
import { redisRateLimiter } from './services/rate-limit/redis-connection';
import { createUpstreamSource } from './services/upstream/index';

/**
 * The dataset's files, from this module's own place: src/node.ts and its bundle dist/node.js both
 * sit one directory below the root (scripts/build.mjs), so the same relative paths serve both.
 */
const DATASET: DatasetFiles = {
  fixture: new URL('../fixtures/taxa.json', import.meta.url),
  compiled: new URL('../generated/taxa.bin', import.meta.url),
  manifest: new URL('../generated/manifest.json', import.meta.url),
};

/** The compiled dataset as a section store (src/node/dataset.ts). */
export const fileStore = (check?: DatasetCheck, onShortRead?: (detail: string) => void): SectionStore => openFileStore(DATASET, check, onShortRead);

/** The bundled record source over the compiled dataset (src/node/dataset.ts). */
export const bundledSource = (check?: DatasetCheck): BundledSource => openBundledSource(DATASET, check);

const warn = (message: string) => consoleLog({ level: 'warn', message });

/** The gateway's own version, from package.json. */
function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

/**
 * Starts the gateway; with `--check` (`npm run check`) only validates the configuration, the
 * credential file and the dataset as start-up does, prints the start-up summary and exits 0
 * without listening, like `nginx -t` (docs/reference/operations.md).
 */
export async function main(argv: readonly string[] = []): Promise<void> {
  const { check } = readArguments(argv);
  const started = performance.now();
  const config = parseConfig(process.env);
  // Demo secrets serve loopback only, unless the operator allowed them (docs/reference/operations.md).
  const demoAllowed = demoSecretsBeyondLoopback(config);
  if (demoAllowed) warn(demoAllowed);
  if (!config.tokenSigningSecret) warn('TOKEN_SIGNING_SECRET is not set: tokens are signed with a random per-process secret.');
  configWarnings(config, systemClock.now()).forEach(warn);
  // Upstream mode (docs/reference/operations.md) never loads the bundled dataset.
  const bundled = config.upstreamUrl ? undefined : bundledSource(check ? 'hashes' : 'sizes');
  const log = batchedStdoutLog();
  // The check opens no listener: it validates what this process reads.
  const observed = check ? undefined : await metricsListener(config, bundled?.lastModified ?? 'upstream', packageVersion);
  const metrics = observed?.metrics;
  // Backends receive exactly the documented headers: Node's fetch would add its own (src/node/backend-fetch.ts).
  const backendFetch = nodeBackendFetch();
  const source = bundled ?? createUpstreamSource(config, { clock: systemClock, log, metrics, fetch: backendFetch });
  // REDIS_URL shares rate limits and failure throttles between instances; unset, they are per process.
  // The check connects to nothing: it validates what this process reads.
  const rateLimiter = config.redisUrl && !check ? await redisRateLimiter(config.redisUrl, systemClock, log) : undefined;
  // The credential file is read again on SIGHUP and when it changes (src/node/credential-reload.ts).
  const credentials = liveCredentials(config.credentialsFile, { log, warn });
  process.on('SIGHUP', () => credentials.reload('SIGHUP'));
  metrics?.watchCredentialReloads(credentials.status);
  const lifecycle = stoppableLifecycle();
  // OpenTelemetry is loaded only when an endpoint is set: without it, start-up and memory are untouched.
  const otlp = config.otlpEndpoint && !check ? await (await import('./node/otlp')).otlpExport(`${config.serviceName}-gateway`) : undefined;
  // What each client did since the process started, for its self-service migration plan and /metrics.
  const usage = new MemoryUsageStore(new Date(systemClock.now()).toISOString());
  metrics?.watchMigration((movedSince) => usage.statuses(movedSince));
  const services = assembleServices(config, {
    source,
    credentials: credentials.store,
    backendFetch,
    fallbackSigningSecret: randomSecret(),
    connection: nodeConnection,
    header: nodeHeader,
    clientGone: nodeClientGone,
    log,
    digest: nodeDigest,
    afterResponse: afterNodeResponse,
    docsAssets: nodeDocsAssets(),
    rateLimiter,
    lifecycle,
    recordRequest: otlp?.record,
    usage,
    metrics,
  });
  // Benchmark only (bench/observability.ts): the gateway without trace context, to measure what it costs.
  const app = createApp(config, services, { traceContext: process.env.BENCH_WITHOUT_TRACE_CONTEXT !== '1' });
  const summary = () => ({
    mode: bundled ? 'bundled' : 'upstream',
    records: bundled?.counts(),
    credentials: { source: config.credentialsFile ? 'CREDENTIALS_FILE' : 'demo', ...credentials.store.counts() },
    metrics: observed ? observed.at : null,
    startup_ms: Math.round(performance.now() - started),
    config: describeConfig(config),
  });
  if (check) {
    // What start-up would refuse when it listens, the check refuses too.
    await probeHost(config);
    consoleLog({ level: 'info', message: 'check passed: the gateway would start (not listening)', host: config.host, port: config.port, ...summary() });
    // Whatever the services started (timers, watchers) must not keep a check running.
    process.exit(0);
  }

  // Node's limits and the answers to what its HTTP layer refuses: src/node/http-server.ts.
  const server = createGatewayServer(app.fetch, config, { log, clock: systemClock, metrics });
  // SIGTERM/SIGINT: readiness 503, drain, exit (src/node/shutdown.ts).
  // Spans still batched are exported before the process ends.
  const exit = (code: number) => void (otlp ? otlp.shutdown().catch(() => {}) : Promise.resolve()).finally(() => process.exit(code));
  listenForStop(gracefulStop(server, config.shutdown, { lifecycle, log, exit }).stop);
  server.listen(config.port, config.host, () => {
    const info = server.address() as AddressInfo;
    // The pid is where an operator sends SIGHUP (reload) and SIGTERM: the gateway's, never npm's.
    consoleLog({ level: 'info', message: 'gateway listening', host: info.address, port: info.port, pid: process.pid, ...summary() });
  });

  server.once('error', (err: NodeJS.ErrnoException) => {
    console.error(listenError(err, config).message);
    process.exit(1);
  });
}

/**
 * `main` as a program runs it: a bad setting stops start-up with one line naming the variable, a
 * missing or damaged dataset with one line naming the file and how to rebuild it, never a stack or
 * a secret. `npm start` (scripts/start.mjs, after its staleness check) and
 * `node dist/node.js` both come here.
 */
export function run(argv: readonly string[]): Promise<void> {
  return main(argv).catch((err: unknown) => {
    if (!(err instanceof ConfigError) && !(err instanceof DatasetError)) throw err;
    console.error(err.message);
    process.exit(1);
  });
}

// Started as a program (`node dist/node.js`), not imported (tests import `nodeConnection`).
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) void run(process.argv.slice(2));
