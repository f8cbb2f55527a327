/** The Node entry (staging, self-hosting): with src/node/, the only modules that touch Node APIs. */
import type { HttpBindings } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import * as nodeCrypto from 'node:crypto';
import { readFileSync, readSync, realpathSync, statSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { pathToFileURL } from 'node:url';
import { createApp } from './app';
import { nodeBackendFetch } from './node/backend-fetch';
import { liveCredentials } from './node/credential-reload';
import { checkHash, DatasetError, datasetError, manifestEntry, openChecked, rebuildAdvice } from './node/dataset-files';
import { demoSecretsBeyondLoopback } from './node/demo-secrets';
import { createGatewayServer } from './node/http-server';
import { gracefulStop, listenForStop } from './node/shutdown';
import type { PrometheusMetrics } from './node/prometheus';
import { ConfigError, configWarnings, describeConfig, parseConfig, type Config } from './config';
import type { DocsAssets } from './openapi/docs-assets';
import { BundledSource } from './services/bundled/bundled-source';
import { fileContainerStore, type SectionStore } from './services/bundled/compiled/store';
import { systemClock } from './services/clock';
import { stoppableLifecycle } from './services/lifecycle';
import type { ConnectionInfo } from './services/connection';
import type { LogLine } from './services/log';
import { assembleServices, randomSecret } from './assemble-services';
import { createUpstreamSource } from './services/upstream/index';
import { redisRateLimiter } from './services/rate-limit/redis-connection';
import { consoleLog, logText } from './services/log';

const FIXTURE = new URL('../fixtures/taxa.json', import.meta.url);
/** The compiled dataset (`npm run compile:data`; `npm start` runs it first when stale). */
const COMPILED = new URL('../generated/taxa.bin', import.meta.url);
/** What the build recorded of each generated file (src/node/dataset-files.ts). */
const MANIFEST = new URL('../generated/manifest.json', import.meta.url);

const warn = (message: string) => consoleLog({ level: 'warn', message });

const modified = (url: URL) => statSync(url, { throwIfNoEntry: false })?.mtimeMs;

/** How far the compiled dataset is checked when opened: sizes and bounds at every start, hashes too by `npm run check`. */
export type DatasetCheck = 'sizes' | 'hashes';

/** A read of the compiled dataset that came back short while serving: one error line, the first time only. */
function logShortRead(detail: string): void {
  consoleLog({
    level: 'error',
    message: `generated/taxa.bin read short (cut or replaced while the gateway runs): /readyz answers 503 "dataset" and data requests 503 until the gateway restarts on a whole dataset; ${rebuildAdvice()}`,
    file: 'generated/taxa.bin',
    detail,
  });
}

/**
 * The compiled dataset on disk, read in place: opening it reads its header; a section is read by
 * a positioned read when a request first needs it, and the records' JSON whenever one does (the
 * operating system's page cache keeps the file, shared by every process on the machine, so the
 * process need not). The file stays open for the life of the process, so a recompile, which
 * writes a new file, never mixes two artifacts. Its size (and with `hashes` its SHA-256) must be
 * what the build recorded, and its sections within it: otherwise one line (`DatasetError`).
 */
export function fileStore(check: DatasetCheck = 'sizes', onShortRead: (detail: string) => void = logShortRead): SectionStore {
  const label = 'generated/taxa.bin';
  const expected = manifestEntry(MANIFEST, 'taxa.bin');
  const fd = openChecked(COMPILED, label, expected);
  if (check === 'hashes') checkHash(fd, label, expected);
  const readAt = (offset: number, length: number) => {
    // A buffer of its own: sections are viewed as typed arrays, which need its alignment.
    const bytes = Buffer.allocUnsafeSlow(length);
    const read = readSync(fd, bytes, 0, length, offset);
    return read === length ? bytes : bytes.subarray(0, read);
  };
  try {
    return fileContainerStore({ readAt, size: expected.bytes, onShortRead });
  } catch (err) {
    throw datasetError(label, `is not a dataset this gateway can read (${(err as Error).message})`);
  }
}

/**
 * The bundled record source over the compiled dataset: opening it reads only the container's
 * header, and memory holds only the pieces requests touched. A compiled dataset that is missing,
 * damaged or older than the fixture stops start-up with one line.
 */
export function bundledSource(check: DatasetCheck = 'sizes'): BundledSource {
  const built = modified(COMPILED);
  const fixture = modified(FIXTURE);
  if (built === undefined) throw datasetError('generated/taxa.bin', 'is missing');
  // Compiling in memory instead took some 350 MB, past the heap the start flags allow: refused.
  if (fixture !== undefined && built < fixture)
    throw datasetError('generated/taxa.bin', 'is older than fixtures/taxa.json (compiled from another fixture, or copied without its times)');
  return new BundledSource(fileStore(check));
}

/**
 * SHA-256 hex, synchronously: no hop to WebCrypto's thread pool for every presented credential.
 * `crypto.hash` (Node 20.12 on) is the one-shot form, a third of the cost of a `Hash` object.
 */
const oneShot = (nodeCrypto as { hash?: typeof nodeCrypto.hash }).hash;
export const nodeDigest = oneShot
  ? (text: string): string => oneShot('sha256', text, 'hex') as string
  : (text: string): string => nodeCrypto.createHash('sha256').update(text).digest('hex');

/** How long a log line may wait for its batch, and how large a batch may grow before it is written. */
const LOG_BATCH_MS = 50;
const LOG_BATCH_BYTES = 64 * 1024;
/** Log text the process may hold while its reader falls behind (a slow pipe, a stalled log shipper). */
export const LOG_QUEUE_MAX_BYTES = 8 * 1024 * 1024;

/** Where batched log text goes: stdout, or a stream of the test's. */
export interface LogSink {
  write(text: string): boolean;
  /** Bytes written but not yet taken by the reader. */
  readonly writableLength: number;
}

/**
 * Log lines written in batches: one write per 50 ms (or per 64 KiB) instead of one per request,
 * since each write is a system call that costs about as much as serving a small request. What the
 * reader has not taken yet is bounded by `maxQueuedBytes`: past it lines are dropped and counted,
 * and one warn line says how many once the reader catches up (an unbounded queue behind a slow
 * log shipper grew a gateway to 750 MB in 45 s), rather than the process running out of memory.
 */
export function batchedLog(sink: LogSink, maxQueuedBytes = LOG_QUEUE_MAX_BYTES) {
  let pending = '';
  let dropped = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const text = pending;
    pending = '';
    if (text) sink.write(text);
  };
  const log = (line: LogLine) => {
    const text = `${logText(line)}\n`;
    if (sink.writableLength + pending.length + text.length > maxQueuedBytes) {
      dropped++;
      return;
    }
    if (dropped > 0 && sink.writableLength + pending.length < maxQueuedBytes / 2) {
      pending += `${logText({ level: 'warn', message: 'log lines dropped: the log reader did not keep up', dropped })}\n`;
      dropped = 0;
    }
    pending += text;
    if (pending.length >= LOG_BATCH_BYTES) flush();
    else timer ??= setTimeout(flush, LOG_BATCH_MS).unref();
  };
  /** Takes what is still waiting for its batch (for a synchronous write at exit). */
  const take = () => {
    const text = pending;
    pending = '';
    return text;
  };
  return { log, take };
}

/** The access log on stdout, batched; whatever is pending at exit is written synchronously, so no line is lost at shutdown. */
export function batchedStdoutLog(): (line: LogLine) => void {
  const { log, take } = batchedLog(process.stdout);
  process.once('exit', () => {
    const text = take();
    if (text) writeSync(1, text);
  });
  return log;
}

/** The docs page's UI files from the installed `swagger-ui-dist`, read on first use. */
export function nodeDocsAssets(): DocsAssets {
  const dir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const file = (name: string) => {
    let text: string | undefined;
    return () => (text ??= readFileSync(join(dir, name), 'utf8'));
  };
  return { script: file('swagger-ui-bundle.js'), style: file('swagger-ui.css') };
}

/** The gateway's own version, from package.json. */
function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

/**
 * Prometheus metrics on their own listener when `METRICS_PORT` is set (CONTRACT section 20);
 * resolves once it listens, with where. Unset: no listener, the gateway records nothing, and
 * prom-client is never loaded (a dynamic import, as the Redis client's).
 */
async function metricsListener(config: Config, dataset: string): Promise<{ metrics: PrometheusMetrics; at: { host: string; port: number } } | undefined> {
  const { port, host } = config.metrics;
  if (port === undefined) return undefined;
  const [{ prometheusMetrics }, { createMetricsServer }] = await Promise.all([import('./node/prometheus'), import('./node/metrics-server')]);
  const metrics = await prometheusMetrics({ timeoutMs: config.upstream.timeoutMs, build: { version: packageVersion(), dataset } });
  const server = createMetricsServer(metrics);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      const taken = err.code === 'EADDRINUSE' ? `${port} is already in use on ${host}` : `${host}:${port} could not be opened (${err.code ?? err.message})`;
      reject(new ConfigError('METRICS_PORT', `${taken}: choose another METRICS_PORT or METRICS_HOST`));
    });
    server.listen(port, host, resolve);
  });
  // Scrapes must not keep a draining gateway alive.
  server.unref();
  const info = server.address() as AddressInfo;
  return { metrics, at: { host: info.address, port: info.port } };
}

/** The caller left before its answer was written: Node destroys the response stream with the socket. */
export const nodeClientGone = (c: Context): boolean => (c.env as HttpBindings).outgoing.destroyed;

/** What each open socket is: read once per connection, not per request (keep-alive carries many). */
const connections = new WeakMap<object, ConnectionInfo>();

/** TLS and the peer address from the Node socket, for the transport policy (CONTRACT section 9). */
export function nodeConnection(c: Context): ConnectionInfo {
  const { socket } = (c.env as HttpBindings).incoming;
  let known = connections.get(socket);
  if (!known) {
    known = { tls: (socket as Partial<TLSSocket>).encrypted === true, remoteAddress: getConnInfo(c).remote.address };
    // A socket whose peer is not known yet (or no longer) is not remembered as such.
    if (known.remoteAddress !== undefined) connections.set(socket, known);
  }
  return known;
}

/** A listen failure as one line naming the setting to change (CONTRACT section 17), never a stack. */
function listenError(err: NodeJS.ErrnoException, config: Pick<Config, 'host' | 'port'>): ConfigError {
  const where = `${config.host}:${config.port}`;
  if (err.code === 'EADDRINUSE')
    return new ConfigError('PORT', `${config.port} is already in use on ${config.host}: stop the other process or choose another PORT`);
  if (err.code === 'EACCES') return new ConfigError('PORT', `${config.port} may not be opened by this user on ${config.host}: choose a PORT above 1023`);
  if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') {
    return new ConfigError(
      'HOST',
      `${JSON.stringify(config.host)} is not an address of this machine (listening on ${where} failed): use 0.0.0.0, 127.0.0.1 or one of its addresses`,
    );
  }
  return new ConfigError('HOST', `and PORT: listening on ${where} failed (${err.code ?? err.message})`);
}

/**
 * For the check: whether `HOST` is an address this machine can listen on, by listening on it with
 * a port of the system's choosing (the configured one may be the running gateway's).
 */
function probeHost(config: Pick<Config, 'host' | 'port'>): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', (err: NodeJS.ErrnoException) => reject(listenError(err, config)));
    probe.listen(0, config.host, () => probe.close(() => resolve()));
  });
}

/** Starts `task` once the response has been written (or the caller has gone), never before. */
export function afterNodeResponse(c: Context, task: () => Promise<void>): void {
  // setImmediate: requests already waiting on the event loop are read before the comparison starts.
  (c.env as HttpBindings).outgoing.once('close', () => setImmediate(() => void task()));
}

/** What `--help` prints (`npm start -- --help`, `npm run check -- --help`, `node dist/node.js --help`). */
const USAGE = `usage: npm start                 (node dist/node.js)          serve, configured by the environment (README, Configuration)
       npm run check             (node dist/node.js --check)  validate the configuration, the credential file and the dataset
                                                              as start-up would, print the start-up summary, exit 0 or 1; listens on nothing
Signals: SIGTERM or SIGINT drain and stop; SIGHUP reads CREDENTIALS_FILE again. Send them to the gateway's
pid (the "pid" of its "gateway listening" line), not to npm.`;

/**
 * Starts the gateway; with `--check` (`npm run check`) only validates the configuration, the
 * credential file and the dataset as start-up does, prints the start-up summary and exits 0
 * without listening, like `nginx -t` (CONTRACT section 21).
 */
export async function main(argv: readonly string[] = []): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.error(USAGE);
    process.exit(0);
  }
  const unknown = argv.find((arg) => arg !== '--check');
  if (unknown !== undefined) {
    console.error(`${JSON.stringify(unknown)} is not an option: the gateway takes only --check (validate and print the start-up summary without listening)`);
    process.exit(2);
  }
  const check = argv.includes('--check');
  const started = performance.now();
  const config = parseConfig(process.env);
  // Demo secrets serve loopback only, unless the operator allowed them (CONTRACT section 22).
  const demoAllowed = demoSecretsBeyondLoopback(config);
  if (demoAllowed) warn(demoAllowed);
  if (!config.tokenSigningSecret) warn('TOKEN_SIGNING_SECRET is not set: tokens are signed with a random per-process secret.');
  configWarnings(config, systemClock.now()).forEach(warn);
  // Upstream mode (CONTRACT section 12) never loads the bundled dataset.
  const bundled = config.upstreamUrl ? undefined : bundledSource(check ? 'hashes' : 'sizes');
  const log = batchedStdoutLog();
  // The check opens no listener: it validates what this process reads.
  const observed = check ? undefined : await metricsListener(config, bundled?.lastModified ?? 'upstream');
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
  const services = assembleServices(config, {
    source,
    credentials: credentials.store,
    backendFetch,
    fallbackSigningSecret: randomSecret(),
    connection: nodeConnection,
    clientGone: nodeClientGone,
    log,
    digest: nodeDigest,
    afterResponse: afterNodeResponse,
    docsAssets: nodeDocsAssets(),
    rateLimiter,
    lifecycle,
    recordRequest: otlp?.record,
    metrics,
  });
  const app = createApp(config, services);
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
