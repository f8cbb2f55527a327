/**
 * `npm run bench:edge`: the gateway as a fresh Workers isolate sees it, under `wrangler dev`
 * (local workerd, offline). For each of `BENCH_RUNS` fresh starts: the wall time of the first
 * request of each kind (page, search, sorted page, detail, v1 page; the first one also builds the
 * gateway), then the isolate's heap through the inspector (`Runtime.getHeapUsage`: `usedSize` +
 * `backingStorageSize`). Then the compressed upload of `wrangler deploy --dry-run`, and what the
 * compiled dataset would add to it as a bundled module instead of Static Assets.
 *
 * Then first searches: what every listed term (bench/search-terms.ts: every two-letter needle, the
 * 200 most common three- and four-letter ones, every genus name) reads with nothing held, counted
 * in process through the piece store (pieces, bytes, rounds: worst, 99th percentile, median), and
 * the wall time of `BENCH_TERMS` of them (default 24: the ones reading the most bytes and the most
 * pieces, common words, then others at random), each the first search of its own fresh isolate,
 * after a request that builds the gateway and reads no piece. A fresh isolate per term for all of
 * them (about 4,800) would take hours under `wrangler dev`; what a term reads does not depend on
 * timing, so the counts cover every term and the clock a sample holding the worst.
 *
 * `BENCH_QS=rosa,ro,...` times those terms first.
 * `BENCH_GATEWAY_DIR=/path/to/another/checkout` measures that tree's worker with this harness.
 * Seeds the demo credentials into local KV first (`npm run seed:worker`). Not part of `npm test`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import WebSocket from 'ws';
import { freePort } from './processes';
import { everyTermReads, summary, type TermReads } from './search-reads';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const TERMS = Number(process.env.BENCH_TERMS ?? 24);
const HERE = fileURLToPath(new URL('..', import.meta.url));
const DIR = process.env.BENCH_GATEWAY_DIR ?? HERE;
const ENV = { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false', WRANGLER_HIDE_BANNER: 'true' };
const WRANGLER = join(HERE, 'node_modules/.bin/wrangler');
const AUTH = { Authorization: 'ApiKey demo-project-key' };
const FIRSTS = [
  ['page', '/v2/species?page=3'],
  ['search', '/v2/species?q=abies'],
  ['sorted', '/v2/species?order[common_name]=desc&page=2'],
  ['detail', '/v2/species/ABBA'],
  ['v1 page', '/v1/species?page=5'],
] as const;

/** `Runtime.getHeapUsage` of the isolate behind wrangler's inspector proxy. */
function heapUsage(inspectorPort: number): Promise<{ usedSize: number; backingStorageSize: number; totalSize: number }> {
  return new Promise((resolve, reject) => {
    // The proxy answers only DevTools' own origin.
    const ws = new WebSocket(`ws://127.0.0.1:${inspectorPort}/ws`, { origin: 'https://devtools.devprod.cloudflare.dev' });
    const timer = setTimeout(() => (ws.terminate(), reject(new Error('inspector did not answer'))), 15_000);
    ws.on('open', () => ws.send(JSON.stringify({ id: 1, method: 'Runtime.getHeapUsage' })));
    ws.on('message', (data) => {
      const msg = JSON.parse(String(data)) as { id?: number; result?: { usedSize: number; backingStorageSize?: number; totalSize: number } };
      if (msg.id !== 1 || !msg.result) return;
      clearTimeout(timer);
      ws.close();
      resolve({ backingStorageSize: 0, ...msg.result });
    });
    ws.on('error', (err) => (clearTimeout(timer), reject(err)));
  });
}

/** Runs `use` against a fresh `wrangler dev` (a fresh isolate), then stops it. */
async function withFreshWorker<T>(use: (port: number, inspector: number, ready: number) => Promise<T>): Promise<T> {
  const [port, inspector] = [await freePort(), await freePort()];
  const started = performance.now();
  const dev = spawn(WRANGLER, ['dev', '--ip', '127.0.0.1', '--port', String(port), '--inspector-port', String(inspector)], {
    cwd: DIR,
    env: ENV,
    detached: true,
  });
  try {
    await new Promise<void>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`wrangler dev not ready in 90 s:\n${out}`)), 90_000);
      const read = (chunk: Buffer) => {
        out += chunk;
        if (out.includes('Ready on')) clearTimeout(timer), resolve();
      };
      dev.stdout.on('data', read);
      dev.stderr.on('data', read);
    });
    return await use(port, inspector, performance.now() - started);
  } finally {
    if (dev.pid) process.kill(-dev.pid, 'SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
  }
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

function freshRun(): Promise<{ ready: number; firsts: number[]; heapMb: number; v8Mb: number; buffersMb: number }> {
  return withFreshWorker(async (port, inspector, ready) => {
    const firsts: number[] = [];
    for (const [, path] of FIRSTS) firsts.push(await timed(port, path));
    const heap = await heapUsage(inspector);
    const mb = (n: number) => n / 1024 / 1024;
    return { ready, firsts, heapMb: mb(heap.usedSize + heap.backingStorageSize), v8Mb: mb(heap.usedSize), buffersMb: mb(heap.backingStorageSize) };
  });
}

/**
 * The wall time of `q` as the first search of a fresh isolate, once a request that reads no piece
 * has built the gateway and found the caller (`?page=0`: refused with 400 after the access check).
 */
function freshSearch(q: string): Promise<{ gateway: number; search: number }> {
  return withFreshWorker(async (port) => {
    const gateway = await timed(port, '/v2/species?page=0', 400);
    return { gateway, search: await timed(port, `/v2/species?q=${encodeURIComponent(q)}`) };
  });
}

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

/** `Total Upload: … KiB / gzip: … KiB` of a dry-run deploy. */
function uploadSize(): string {
  const out = spawnSync(WRANGLER, ['deploy', '--dry-run', '--outdir', mkdtempSync(join(tmpdir(), 'bench-edge-'))], { cwd: DIR, env: ENV, encoding: 'utf8' });
  return /Total Upload: ([^\n]+)/.exec(out.stdout + out.stderr)?.[1]?.trim() ?? `unknown (exit ${out.status}): ${(out.stdout + out.stderr).slice(-400)}`;
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
  const seeded = spawnSync('npm', ['run', '-s', 'seed:worker'], { cwd: DIR, env: ENV, encoding: 'utf8' });
  if (seeded.status !== 0) throw new Error(`seed:worker failed: ${seeded.stderr}`);
  const fmt = (n: number) => String(Math.round(n));
  const rows: string[] = [];
  for (let run = 1; run <= RUNS; run++) {
    const r = await freshRun();
    process.stderr.write(`run ${run}: first requests ${r.firsts.map(fmt).join(', ')} ms; heap ${r.heapMb.toFixed(1)} MB\n`);
    rows.push(
      `| ${run} | ${fmt(r.ready)} | ${r.firsts.map(fmt).join(' | ')} | ${r.heapMb.toFixed(1)} (${r.v8Mb.toFixed(1)} V8 + ${r.buffersMb.toFixed(1)} buffers) |`,
    );
  }
  console.log(`\n${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}; worker: ${DIR}`);
  console.log(`\n| fresh start | wrangler ready ms | ${FIRSTS.map(([k]) => `first ${k} ms`).join(' | ')} | heap MB after them |`);
  console.log(`|---|---:|${FIRSTS.map(() => '---:|').join('')}---:|`);
  for (const row of rows) console.log(row);
  console.log('\nFirst search of each listed term, nothing held (in process, through the piece store):\n');
  const terms = await everyTermReads();
  console.log('| terms | count | pieces (worst / p99 / median) | KB (worst / p99 / median) | rounds (worst / p99 / median) |');
  console.log('|---|---:|---:|---:|---:|');
  for (const row of summary(terms)) console.log(row);
  const timedTerms: Array<TermReads & { ms: number; gateway: number }> = [];
  for (const term of sampleOf(terms, TERMS)) {
    const { gateway, search } = await freshSearch(term.q);
    process.stderr.write(`q=${term.q}: ${fmt(search)} ms (${term.pieces} pieces, ${(term.bytes / 1024).toFixed(1)} KB)\n`);
    timedTerms.push({ ...term, ms: search, gateway });
  }
  if (timedTerms.length) {
    const ms = timedTerms.map((t) => t.ms).sort((a, b) => a - b);
    console.log(`\nFirst search in a fresh isolate (wall ms, after a request reading no piece built the gateway), ${timedTerms.length} terms:`);
    console.log(`worst ${fmt(ms.at(-1)!)}, median ${fmt(ms[Math.floor(ms.length / 2)]!)}, best ${fmt(ms[0]!)}\n`);
    console.log('| q | group | results | pieces | KB | first search ms |');
    console.log('|---|---|---:|---:|---:|---:|');
    for (const t of timedTerms.sort((a, b) => b.ms - a.ms))
      console.log(`| ${t.q} | ${t.group} | ${t.total} | ${t.pieces} | ${(t.bytes / 1024).toFixed(1)} | ${fmt(t.ms)} |`);
  }
  console.log(`\nUpload (wrangler deploy --dry-run): ${uploadSize()}`);
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

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
