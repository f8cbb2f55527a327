/**
 * `npm run bench:edge`: the gateway as a fresh Workers isolate sees it, in workerd (local, offline).
 * For each of `BENCH_RUNS` fresh starts: the wall time of the first
 * request of each kind (page, search, sorted page, detail, v1 page; the first one also builds the
 * gateway), then the isolate's heap through the inspector (`Runtime.getHeapUsage`: `usedSize` +
 * `backingStorageSize`). Then the compressed upload of `wrangler deploy --dry-run`, and what the
 * compiled dataset would add to it as a bundled module instead of Static Assets.
 *
 * A fresh start is a new workerd process running the bundle `wrangler deploy --dry-run` builds, with
 * the bindings, assets and local state of `wrangler.toml` (`unstable_getMiniflareWorkerOptions`),
 * started through Miniflare: what `wrangler dev` runs, without its proxy worker and the inspector
 * connection through which it reports every fetch the worker makes, body included, which the
 * platform does not have. `BENCH_RUNTIME=wrangler-dev` times fresh `wrangler dev` processes instead.
 * `BENCH_WARM_SERVICES=1` calls the local KV and assets services once from outside before the first
 * request (Cloudflare runs those services already; workerd starts each on its first call), leaving
 * the gateway's isolate untouched. One start before the measured ones is discarded (it loads
 * workerd and the pieces from disk).
 *
 * Then first searches: what every listed term (bench/search-terms.ts: every two-letter needle, the
 * 200 most common three- and four-letter ones, every genus name) reads with nothing held, counted
 * in process through the piece store (pieces, bytes, rounds: worst, 99th percentile, median), and
 * the wall time of `BENCH_TERMS` of them (default 24: the ones reading the most bytes and the most
 * pieces, common words, then others at random), each the first search of its own fresh isolate,
 * after a request that builds the gateway and reads no piece. A fresh isolate per term for all of
 * them (about 4,800) would take hours; what a term reads does not depend on
 * timing, so the counts cover every term and the clock a sample holding the worst.
 *
 * `BENCH_QS=rosa,ro,...` times those terms first. `BENCH_BUSY=1` also says, for each timed request,
 * how long the isolate's thread was not idle (V8's sampling profiler through the inspector): its
 * JavaScript, or a call into a binding; the rest of its wall time it waited for answers.
 * `BENCH_GATEWAY_DIR=/path/to/another/checkout` measures that tree's worker with this harness.
 * Seeds the demo credentials into local KV first (`npm run seed:worker`). Not part of `npm test`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Miniflare } from 'miniflare';
import { freePort, startProcess } from '../tools/processes';
import { everyTermReads, summary, type TermReads } from './search-reads';
import { built, Inspector, removeBuilt, seedCredentials, startWorkerd, WRANGLER, WRANGLER_ENV } from './workerd';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const TERMS = Number(process.env.BENCH_TERMS ?? 24);
const HERE = fileURLToPath(new URL('..', import.meta.url));
const DIR = process.env.BENCH_GATEWAY_DIR ?? HERE;
/** Where fresh isolates run: workerd started through Miniflare, or `wrangler dev`. */
const RUNTIME = process.env.BENCH_RUNTIME ?? 'workerd';
if (RUNTIME !== 'workerd' && RUNTIME !== 'wrangler-dev') throw new Error(`BENCH_RUNTIME=${RUNTIME}: expected workerd or wrangler-dev`);
const WARM_SERVICES = process.env.BENCH_WARM_SERVICES === '1';
const AUTH = { Authorization: 'ApiKey demo-project-key' };
/** In this order in every fresh isolate: `/healthz` first, the yardstick each other first request is stated against. */
const FIRSTS = [
  ['healthz', '/healthz'],
  ['page', '/v2/species?page=3'],
  ['search', '/v2/species?q=abies'],
  ['sorted', '/v2/species?order[common_name]=desc&page=2'],
  ['detail', '/v2/species/ABBA'],
  ['v1 page', '/v1/species?page=5'],
] as const;

/** `BENCH_BUSY=1`: each timed request also says how long the isolate was busy during it (the profiler costs a little wall time). */
const BUSY = process.env.BENCH_BUSY === '1';

/** A fresh isolate to ask: its port, its inspector, and how long its runtime took to be ready. */
interface FreshWorker {
  port: number;
  inspector: Inspector;
  ready: number;
}

/** Runs `use` against a fresh isolate in a runtime of its own, then stops the runtime. */
async function withFreshWorker<T>(use: (worker: FreshWorker) => Promise<T>): Promise<T> {
  const { worker, stop } = await (RUNTIME === 'wrangler-dev' ? startWranglerDev() : startGatewayWorkerd());
  try {
    return await use(worker);
  } finally {
    worker.inspector.close();
    await stop();
  }
}

/** A new workerd process running the bundle with wrangler.toml's bindings and `wrangler dev`'s local state. */
async function startGatewayWorkerd(): Promise<{ worker: FreshWorker; stop: () => Promise<void> }> {
  const { mf, port, inspector, ready } = await startWorkerd(DIR);
  if (WARM_SERVICES) await warmServices(mf);
  return { worker: { port, inspector, ready }, stop: () => mf.dispose() };
}

/** One call to the local KV and assets services from outside, so the gateway's first calls find them running; its isolate is not touched. */
async function warmServices(mf: Miniflare): Promise<void> {
  const kv = await mf.getKVNamespace('CREDENTIALS');
  await kv.get('bench-warm-up');
  const { ASSETS } = await mf.getBindings<{ ASSETS: { fetch(url: string): Promise<{ arrayBuffer(): Promise<ArrayBuffer> }> } }>();
  await (await ASSETS.fetch('http://assets.local/bench-warm-up')).arrayBuffer();
}

/** A fresh `wrangler dev` process, ready once it says so. */
async function startWranglerDev(): Promise<{ worker: FreshWorker; stop: () => Promise<void> }> {
  const [port, inspectorPort] = [await freePort(), await freePort()];
  const started = performance.now();
  const dev = await startProcess({
    command: WRANGLER,
    args: ['dev', '--ip', '127.0.0.1', '--port', String(port), '--inspector-port', String(inspectorPort)],
    cwd: DIR,
    baseEnv: WRANGLER_ENV,
    // Its own process group: wrangler and the workerd it starts are stopped together.
    group: true,
    ready: (line) => (line.includes('Ready on') ? true : undefined),
    readyOn: 'any',
    guardMs: 90_000,
    keepLines: false,
  });
  const stop = async () => {
    await dev.stop('SIGTERM');
  };
  const inspector = new Inspector(`ws://127.0.0.1:${inspectorPort}/ws`);
  return { worker: { port, inspector, ready: performance.now() - started }, stop };
}

/** Milliseconds to the whole answer of `path`, which must be `status`. */
async function timed(port: number, path: string, status = 200): Promise<number> {
  const t = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: AUTH });
  await res.arrayBuffer();
  const ms = performance.now() - t;
  if (res.status !== status) throw new Error(`${path} -> ${res.status}`);
  return ms;
}

/** The wall time of `path` on a fresh worker and, with `BENCH_BUSY=1`, the isolate's busy time during it. */
async function timedBusy(inspector: Inspector, port: number, path: string, status = 200): Promise<{ ms: number; busyMs?: number }> {
  if (!BUSY) return { ms: await timed(port, path, status) };
  const { value, busyMs } = await inspector.busy(() => timed(port, path, status));
  return { ms: value, busyMs };
}

function freshRun(): Promise<{ ready: number; firsts: Array<{ ms: number; busyMs?: number }>; heapMb: number; v8Mb: number; buffersMb: number }> {
  return withFreshWorker(async ({ port, inspector, ready }) => {
    const firsts: Array<{ ms: number; busyMs?: number }> = [];
    for (const [, path] of FIRSTS) firsts.push(await timedBusy(inspector, port, path));
    const heap = await inspector.heapUsage();
    const mb = (n: number) => n / 1024 / 1024;
    return { ready, firsts, heapMb: mb(heap.usedSize + heap.backingStorageSize), v8Mb: mb(heap.usedSize), buffersMb: mb(heap.backingStorageSize) };
  });
}

/**
 * The wall time of `q` as the first search of a fresh isolate, right after its first `/healthz`
 * (the yardstick: the local runtime's own cost of a first request), which is timed too.
 */
function freshSearch(q: string): Promise<{ healthz: number; search: number; busyMs?: number }> {
  return withFreshWorker(async ({ port, inspector }) => {
    const healthz = await timed(port, '/healthz');
    const { ms, busyMs } = await timedBusy(inspector, port, `/v2/species?q=${encodeURIComponent(q)}`);
    return { healthz, search: ms, busyMs };
  });
}

/** The edge target: every first request within this many ms of the same isolate's first `/healthz`. */
const OVER_HEALTHZ_TARGET_MS = 40;

/** The terms timed on fresh isolates: the most bytes, the most pieces, common words, then others at random (fixed seed). */
function sampleOf(rows: TermReads[], size: number): TermReads[] {
  const picked = new Map<string, TermReads>();
  const add = (r: TermReads | undefined) => r && picked.size < size && picked.set(r.q, r);
  // Terms named first (to time the same ones on two trees), comma-separated.
  for (const q of process.env.BENCH_QS?.split(',') ?? []) add(rows.find((r) => r.q === q));
  for (const r of rows.slice(0, Math.ceil(size / 3))) add(r);
  for (const r of [...rows].sort((a, b) => b.pieces - a.pieces).slice(0, Math.ceil(size / 6))) add(r);
  for (const q of ['rosa', 'ro', 'quercus', 'mint', 'abies']) add(rows.find((r) => r.q === q));
  let seed = 20261125;
  while (picked.size < Math.min(size, rows.length)) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    add(rows[seed % rows.length]);
  }
  return [...picked.values()];
}

/**
 * Loads this process's own `fetch` (undici, loaded by Node on first use: about 20 ms) on a local
 * server before any timing, so the first request of the first fresh start measures the isolate,
 * not the benchmark's HTTP client.
 */
async function warmClient(): Promise<void> {
  const server = createHttpServer((_req, res) => res.end('ok')).listen(0, '127.0.0.1');
  await once(server, 'listening');
  await (await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`)).text();
  server.close();
}

async function main(): Promise<void> {
  await warmClient();
  seedCredentials(DIR);
  const fmt = (n: number) => String(Math.round(n));
  const rows: string[] = [];
  // Per kind, the first request minus the same isolate's first /healthz, over every run.
  const overHealthz = new Map<string, number[]>();
  // Loads workerd, the bundle and the pieces from disk; not measured.
  const discarded = await freshRun();
  process.stderr.write(`discarded start: first requests ${discarded.firsts.map((f) => fmt(f.ms)).join(', ')} ms\n`);
  for (let run = 1; run <= RUNS; run++) {
    const r = await freshRun();
    const firsts = r.firsts.map((f) => (f.busyMs === undefined ? fmt(f.ms) : `${fmt(f.ms)} (${fmt(f.busyMs)})`));
    process.stderr.write(`run ${run}: first requests ${firsts.join(', ')} ms; heap ${r.heapMb.toFixed(1)} MB\n`);
    rows.push(`| ${run} | ${fmt(r.ready)} | ${firsts.join(' | ')} | ${r.heapMb.toFixed(1)} (${r.v8Mb.toFixed(1)} V8 + ${r.buffersMb.toFixed(1)} buffers) |`);
    FIRSTS.forEach(([kind], i) => {
      if (i > 0) overHealthz.set(kind, [...(overHealthz.get(kind) ?? []), r.firsts[i]!.ms - r.firsts[0]!.ms]);
    });
  }
  console.log(`\n${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}; worker: ${DIR}`);
  const services = WARM_SERVICES ? ', its KV and assets services called once from outside first' : '';
  console.log(`Fresh isolates: ${RUNTIME === 'workerd' ? `workerd through Miniflare (the dry-run bundle)${services}` : '`wrangler dev`'}.`);
  if (BUSY) console.log('In parentheses: the ms of it the isolate was not idle (its JavaScript, or inside a binding call); the rest it waited.');
  console.log(`\n| fresh start | runtime ready ms | ${FIRSTS.map(([k]) => `first ${k} ms`).join(' | ')} | heap MB after them |`);
  console.log(`|---|---:|${FIRSTS.map(() => '---:|').join('')}---:|`);
  for (const row of rows) console.log(row);
  console.log(`\nFirst request of each kind minus the same isolate's first /healthz (target: within ${OVER_HEALTHZ_TARGET_MS} ms):\n`);
  console.log('| kind | worst ms | median ms | within target |');
  console.log('|---|---:|---:|---|');
  for (const [kind, deltas] of overHealthz) {
    const sorted = [...deltas].sort((a, b) => a - b);
    console.log(
      `| ${kind} | ${fmt(sorted.at(-1)!)} | ${fmt(sorted[Math.floor(sorted.length / 2)]!)} | ${sorted.at(-1)! <= OVER_HEALTHZ_TARGET_MS ? 'yes' : 'NO'} |`,
    );
  }
  console.log('\nFirst search of each listed term, nothing held (in process, through the piece store):\n');
  const terms = await everyTermReads();
  console.log('| terms | count | pieces (worst / p99 / median) | KB (worst / p99 / median) | rounds (worst / p99 / median) |');
  console.log('|---|---:|---:|---:|---:|');
  for (const row of summary(terms)) console.log(row);
  const timedTerms: Array<TermReads & { ms: number; healthz: number; busyMs?: number }> = [];
  for (const term of sampleOf(terms, TERMS)) {
    const { healthz, search, busyMs } = await freshSearch(term.q);
    const busy = busyMs === undefined ? '' : `, busy ${fmt(busyMs)} ms`;
    process.stderr.write(`q=${term.q}: ${fmt(search)} ms, /healthz ${fmt(healthz)} ms (${term.pieces} pieces, ${(term.bytes / 1024).toFixed(1)} KB${busy})\n`);
    timedTerms.push({ ...term, ms: search, healthz, busyMs });
  }
  if (timedTerms.length) {
    const over = timedTerms.map((t) => t.ms - t.healthz).sort((a, b) => a - b);
    const missed = timedTerms.filter((t) => t.ms - t.healthz > OVER_HEALTHZ_TARGET_MS).length;
    console.log(
      `\nFirst search in a fresh isolate minus its first /healthz (wall ms), ${timedTerms.length} terms, target within ${OVER_HEALTHZ_TARGET_MS} ms:`,
    );
    console.log(
      `worst ${fmt(over.at(-1)!)}, median ${fmt(over[Math.floor(over.length / 2)]!)}, best ${fmt(over[0]!)}; ${missed === 0 ? 'every term within target' : `${missed} terms NOT within target`}\n`,
    );
    console.log(`| q | group | results | pieces | KB | first /healthz ms | first search ms | search minus /healthz ms |${BUSY ? ' isolate busy ms |' : ''}`);
    console.log(`|---|---|---:|---:|---:|---:|---:|---:|${BUSY ? '---:|' : ''}`);
    for (const t of timedTerms.sort((a, b) => b.ms - b.healthz - (a.ms - a.healthz))) {
      const busy = t.busyMs === undefined ? '' : ` ${fmt(t.busyMs)} |`;
      console.log(
        `| ${t.q} | ${t.group} | ${t.total} | ${t.pieces} | ${(t.bytes / 1024).toFixed(1)} | ${fmt(t.healthz)} | ${fmt(t.ms)} | ${fmt(t.ms - t.healthz)} |${busy}`,
      );
    }
  }
  console.log(`\nUpload (wrangler deploy --dry-run): ${built(DIR).upload}`);
  // The other way to ship it: every piece in one bundled module (what the upload would add).
  const pieces = join(DIR, 'generated/assets');
  if (existsSync(pieces)) {
    const bytes = Buffer.concat(
      readdirSync(pieces)
        .sort()
        .map((f) => readFileSync(join(pieces, f))),
    );
    console.log(
      `The compiled dataset as a bundled module instead: +${(bytes.byteLength / 1024).toFixed(0)} KiB / gzip: +${(gzipSync(bytes).byteLength / 1024).toFixed(0)} KiB`,
    );
  }
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(removeBuilt);
