/**
 * `npm run bench:edge`: the gateway as a fresh Workers isolate sees it, under `wrangler dev`
 * (local workerd, offline). For each of `BENCH_RUNS` fresh starts: the wall time of the first
 * request of each kind (page, search, sorted page, detail, v1 page; the first one also builds the
 * gateway), then the isolate's heap through the inspector (`Runtime.getHeapUsage`: `usedSize` +
 * `backingStorageSize`). Then the compressed upload of `wrangler deploy --dry-run`, and what the
 * compiled dataset would add to it as a bundled module instead of Static Assets.
 *
 * `BENCH_GATEWAY_DIR=/path/to/another/checkout` measures that tree's worker with this harness.
 * Seeds the demo credentials into local KV first (`npm run seed:worker`). Not part of `npm test`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import WebSocket from 'ws';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
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

/** A port the OS says is free now (wrangler needs numbers, not 0). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

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

async function freshRun(): Promise<{ ready: number; firsts: number[]; heapMb: number; v8Mb: number; buffersMb: number }> {
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
    const ready = performance.now() - started;
    const firsts: number[] = [];
    for (const [, path] of FIRSTS) {
      const t = performance.now();
      const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: AUTH });
      await res.arrayBuffer();
      firsts.push(performance.now() - t);
      if (res.status !== 200) throw new Error(`${path} -> ${res.status}`);
    }
    const heap = await heapUsage(inspector);
    const mb = (n: number) => n / 1024 / 1024;
    return { ready, firsts, heapMb: mb(heap.usedSize + heap.backingStorageSize), v8Mb: mb(heap.usedSize), buffersMb: mb(heap.backingStorageSize) };
  } finally {
    if (dev.pid) process.kill(-dev.pid, 'SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
  }
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
