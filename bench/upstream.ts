/**
 * `npm run bench:upstream`: the bundled gateway as the upstream, and gateways in upstream mode in front of
 * it (one with the cache off, one warm), driven by autocannon on loopback for the same paths.
 * Each gateway is a child process (`node --import tsx src/node.ts`), so the load generator, the
 * gateway and the upstream each have their own event loop, as in a deployment. Not part of `npm test`.
 */
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import autocannon from 'autocannon';
import { keepableBackend, startGateway, type Server } from './processes';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
/** Distinct paths per case, cycled: enough that coalescing of identical requests plays no part. */
const DISTINCT = 500;
const AUTHORIZATION = 'ApiKey demo-project-key';
const ROOT = new URL('..', import.meta.url);

interface Stats {
  rps: number;
  p50: number;
  p99: number;
  failures: number;
}

async function load(baseUrl: string, paths: string[], seconds: number): Promise<Stats> {
  let i = 0;
  const result = await autocannon({
    url: baseUrl,
    connections: CONNECTIONS,
    duration: seconds,
    headers: { authorization: AUTHORIZATION },
    requests: [{ setupRequest: (req) => ({ ...req, path: paths[i++ % paths.length]! }) }],
  });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, failures: result.non2xx + result.errors + result.timeouts };
}

/** Requests every path once (10 at a time), so the warm gateway's cache holds them all. */
async function warm(baseUrl: string, paths: string[]): Promise<void> {
  for (let k = 0; k < paths.length; k += 10) {
    await Promise.all(
      paths.slice(k, k + 10).map(async (p) => {
        const res = await fetch(baseUrl + p, { headers: { authorization: AUTHORIZATION } });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`warm-up ${p}: ${res.status}`);
      }),
    );
  }
}

function cases(hasV1: boolean): Array<{ name: string; paths: string[] }> {
  const data = JSON.parse(readFileSync(new URL('fixtures/taxa.json', ROOT), 'utf8')) as { species: Array<{ id: string }>; genus: Array<{ name: string }> };
  const spread = <T>(list: T[], n: number) => Array.from({ length: n }, (_, k) => list[Math.floor((k * list.length) / n)]!);
  const pages = Array.from({ length: DISTINCT }, (_, k) => k + 1);
  const list = [
    { name: 'v2 list page', paths: pages.map((p) => `/v2/species?page=${p}`) },
    // 200 genus names: the upstream keeps 256 search masks, so direct searches are not penalised.
    { name: 'v2 search', paths: spread(data.genus, 200).map((g) => `/v2/species?q=${encodeURIComponent(g.name.toLowerCase())}`) },
    { name: 'v2 detail', paths: spread(data.species, DISTINCT).map((s) => `/v2/species/${encodeURIComponent(s.id)}`) },
  ];
  if (hasV1) list.push({ name: 'v1 list page', paths: pages.map((p) => `/v1/species?page=${p}`) });
  return list;
}

const fmt = (n: number, digits = 0) => n.toFixed(digits);
const ratio = (a: number, b: number) => (b === 0 ? 'n/a' : `${(a / b).toFixed(2)}x`);

async function main(): Promise<void> {
  const servers: Server[] = [];
  try {
    const upstream = await startGateway('upstream', {});
    servers.push(upstream);
    const common = { UPSTREAM_URL: upstream.url, UPSTREAM_AUTHORIZATION: AUTHORIZATION };
    const cold = await startGateway('gateway (cache off)', { ...common, UPSTREAM_CACHE_TTL_MS: '0', UPSTREAM_STALE_MS: '0' });
    servers.push(cold);
    // The gateway's own answers are private to their caller; marked public on the way, a warm cache keeps them.
    const keepable = (await keepableBackend(upstream.url)).url;
    const hot = await startGateway('gateway (warm cache)', { ...common, UPSTREAM_URL: keepable, UPSTREAM_CACHE_TTL_MS: '3600000' });
    servers.push(hot);

    const v1 = await fetch(`${upstream.url}/v1/species`, { headers: { authorization: AUTHORIZATION } });
    await v1.arrayBuffer();
    const hasV1 = v1.status === 200;

    const rows: string[] = [];
    for (const c of cases(hasV1)) {
      await warm(hot.url, c.paths);
      const results: Array<[string, Stats]> = [];
      for (const [mode, server] of [
        ['upstream direct', upstream],
        ['gateway, cache off', cold],
        ['gateway, warm cache', hot],
      ] as const) {
        await load(server.url, c.paths, 1); // JIT warm-up, not measured
        const stats = await load(server.url, c.paths, SECONDS);
        results.push([mode, stats]);
        process.stderr.write(`${c.name} / ${mode}: ${fmt(stats.rps)} req/s\n`);
      }
      const direct = results[0]![1];
      for (const [mode, s] of results) {
        const vs = mode === 'upstream direct' ? ['', '', ''] : [ratio(s.rps, direct.rps), ratio(s.p50, direct.p50), ratio(s.p99, direct.p99)];
        rows.push(`| ${c.name} | ${mode} | ${fmt(s.rps)} | ${fmt(s.p50, 1)} | ${fmt(s.p99, 1)} | ${vs.join(' | ')} | ${s.failures} |`);
      }
    }
    const cpu = cpus()[0]?.model ?? 'unknown';
    console.log(
      `\n${cpus().length} CPUs (${cpu}), Node ${process.version}, ${CONNECTIONS} connections, ${SECONDS} s per run, ${DISTINCT} distinct paths per case (200 for search)`,
    );
    if (!hasV1) console.log('v1 list page: skipped (no /v1 in this tree)');
    console.log('\n| case | target | req/s | p50 ms | p99 ms | req/s vs direct | p50 vs direct | p99 vs direct | non-2xx/errors |');
    console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const row of rows) console.log(row);
  } finally {
    for (const s of servers) s.child.kill('SIGTERM');
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
