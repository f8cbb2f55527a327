/**
 * `npm run bench:http`: what a request costs the Node gateway, as a ratio of what the stack itself
 * costs. In one run it starts a reference server (`bench/reference-server.ts`: Hono on
 * `@hono/node-server` answering with a same-size page that is already serialized), the bundled
 * gateway and a gateway in upstream mode in front of it (warm cache; the backend's answers marked
 * as a shared cache may keep them), each a child process on an
 * ephemeral loopback port, and drives each route with autocannon. For every case it prints req/s,
 * p99, the server's CPU µs per request (utime + stime of the child from /proc, so Linux only) and
 * the ratio reference CPU / gateway CPU (1 = the stack's cost; higher is better). The reference
 * is measured in turns with each case (`BENCH_SLICES`, 4 slices of each by default), and each ratio is taken against the
 * reference of its own turns: a machine shared with other work moves both alike.
 *
 * The gateway runs as `npm start` runs it in production: built (`scripts/build.mjs --if-stale`),
 * then the command line of the `start` script (`node <flags> scripts/start.mjs`: the build's check,
 * then `dist/node.js`, in one process).
 *
 * `BENCH_GATEWAY_DIR=/path/to/another/checkout` measures that tree's gateway with this harness
 * (how the numbers "before" in BENCHMARKS.md were taken); `BENCH_CASES=v2 page,v2 detail` runs
 * only those cases (the reference runs in turn with each); `BENCH_PIN=0:1` puts the load on CPU 0
 * and every server on CPU 1 (`bench/processes.ts`). `observability` (a case name there) measures
 * the v2 page on fresh gateways with Prometheus metrics, with OTLP export and without, beside more
 * plain gateways as the noise floor (`bench/observability.ts`). The last case is the reference
 * itself doing what the contract asks of every answer (a real detail's headers, one access line per
 * request on stdout): the share of the gap to the reference no route or policy code can remove.
 * Not part of `npm test`.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { added, type Stats } from './load-stats';
import { observabilityCost } from './observability';
import { keepableBackend, pinning, productionArgs, rssMb, type Server, startGateway, startServer } from './processes';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const DISTINCT = 500;
/** `BENCH_CASES=v2 page,v2 detail` runs only those cases (the reference runs in turn with each). */
const ONLY = process.env.BENCH_CASES?.split(',').map((s) => s.trim());
const AUTHORIZATION = 'ApiKey demo-project-key';
const HERE = fileURLToPath(new URL('..', import.meta.url));
const GATEWAY_DIR = process.env.BENCH_GATEWAY_DIR ?? HERE;
const TICKS_PER_SECOND = 100; // Linux USER_HZ

/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** `expect`: the status every answer should have (404 for a case of refusals); any other counts as a failure. */
async function load(server: Server, paths: string[], seconds: number, expect = 200): Promise<Stats> {
  let i = 0;
  const cpuBefore = cpuSeconds(server.child.pid!);
  const result = await autocannon({
    url: server.url,
    connections: CONNECTIONS,
    duration: seconds,
    headers: { authorization: AUTHORIZATION },
    requests: [{ setupRequest: (req) => ({ ...req, path: paths[i++ % paths.length]! }) }],
  });
  const cpu = cpuSeconds(server.child.pid!) - cpuBefore;
  const total = result.requests.total;
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    cpuUs: total > 0 ? (cpu * 1e6) / total : NaN,
    failures: total - (result.statusCodeStats?.[`${expect}`]?.count ?? 0) + result.errors + result.timeouts,
    requests: total,
    cpuSeconds: cpu,
  };
}

/** Slices per case: the reference and the case take turns, so both meet the same load from the rest of the machine. */
const SLICES = Number(process.env.BENCH_SLICES ?? 4);
/** Seconds of load before each measurement, for the JIT and the caches. */
const WARM_UP = 2;

/**
 * A case and the reference measured in turns (after a warm-up of each): SECONDS of each in
 * SLICES slices, so that what else the machine does at that moment weighs on both alike and
 * the ratio is taken against the reference of the same minute, not of the start of the run.
 */
async function measure(reference: Server, server: Server, paths: string[], expect = 200): Promise<{ ref: Stats; gateway: Stats }> {
  await load(reference, ['/'], WARM_UP);
  await load(server, paths, WARM_UP, expect); // not measured
  const ref: Stats[] = [];
  const gateway: Stats[] = [];
  for (let k = 0; k < SLICES; k++) {
    ref.push(await load(reference, ['/'], SECONDS / SLICES));
    gateway.push(await load(server, paths, SECONDS / SLICES, expect));
  }
  return { ref: added(ref), gateway: added(gateway) };
}

/** Requests every path once, so a warm cache holds them all. */
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

/** The v2 page on gateways with and without metrics and OTLP export (`bench/observability.ts`). */
const OBSERVABILITY_CASE = 'observability';

/**
 * The reference again, doing also what the contract asks of every answer (a real answer's headers,
 * an access line per request): the part of the gap to the reference no gateway code can close.
 */
const OBLIGATIONS_CASE = "reference with every answer's headers and access line";

function cases(): Array<{ name: string; paths: string[]; upstream?: true; obligations?: true; expect?: number }> {
  const data = JSON.parse(readFileSync(join(HERE, 'fixtures/taxa.json'), 'utf8')) as { species: Array<{ id: string }>; genus: Array<{ name: string }> };
  const spread = <T>(list: T[], n: number) => Array.from({ length: n }, (_, k) => list[Math.floor((k * list.length) / n)]!);
  const pages = Array.from({ length: DISTINCT }, (_, k) => k + 1);
  const genus = spread(data.genus, 200).map((g) => encodeURIComponent(g.name));
  return [
    { name: 'v2 page', paths: pages.map((p) => `/v2/species?page=${p}`) },
    // Every page of the species (21 MB of bodies): more than the rendered-page cache holds, so
    // each request is rendered from the dataset.
    { name: 'v2 every page (beyond the page cache)', paths: Array.from({ length: 1640 }, (_, k) => `/v2/species?page=${k + 1}`) },
    { name: 'v2 search', paths: genus.map((g) => `/v2/species?q=${g.toLowerCase()}`) },
    { name: 'v2 sorted page', paths: pages.map((p) => `/v2/species?order[common_name]=asc&page=${p}`) },
    { name: 'v2 detail', paths: spread(data.species, DISTINCT).map((s) => `/v2/species/${encodeURIComponent(s.id)}`) },
    { name: 'v1 page', paths: pages.map((p) => `/v1/species?page=${p}`) },
    { name: 'v2 genus species', paths: genus.map((g) => `/v2/genus/${g}/species`) },
    // An error answer (problem+json, no-store) for ids no record has (no species id has a hyphen).
    { name: 'v2 detail not found (404)', paths: pages.map((p) => `/v2/species/NO-SUCH-${p}`), expect: 404 },
    { name: 'upstream warm cache', paths: pages.map((p) => `/v2/species?page=${p}`), upstream: true },
    { name: OBLIGATIONS_CASE, paths: ['/'], obligations: true },
  ];
}

const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

async function main(): Promise<void> {
  const servers: Server[] = [];
  try {
    const args = productionArgs(GATEWAY_DIR);
    const gateway = await startGateway('gateway', {}, args, GATEWAY_DIR);
    servers.push(gateway);
    const rssStart = rssMb(gateway.child.pid!);
    const upstream = await startGateway(
      'gateway (upstream mode)',
      {
        UPSTREAM_URL: (await keepableBackend(gateway.url)).url,
        UPSTREAM_AUTHORIZATION: AUTHORIZATION,
        UPSTREAM_CACHE_TTL_MS: '3600000',
      },
      args,
      GATEWAY_DIR,
    );
    servers.push(upstream);
    // The reference answers with the bytes of a real v2 page, so both send the same size.
    const page = await fetch(`${gateway.url}/v2/species?page=1`, { headers: { authorization: AUTHORIZATION } });
    const file = join(mkdtempSync(join(tmpdir(), 'bench-http-')), 'page.json');
    writeFileSync(file, new Uint8Array(await page.arrayBuffer()));
    const referenceArgs = (...files: string[]) => [
      // Node's flags of the production start apply to the reference too.
      ...args.filter((a) => a.startsWith('--') && a !== '--import'),
      '--import',
      'tsx',
      join(HERE, 'bench/reference-server.ts'),
      ...files,
    ];
    const referenceUrl = (line: string) => (line.startsWith('{"port"') ? `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}` : undefined);
    const reference = await startServer('reference', referenceArgs(file), {}, referenceUrl);
    servers.push(reference);
    /** The reference with the headers of a real detail (those the stack writes itself left out) and an access line. */
    const obligationsReference = async (): Promise<Server> => {
      const detail = await fetch(`${gateway.url}/v2/species/ABBA`, { headers: { authorization: AUTHORIZATION } });
      await detail.arrayBuffer();
      const own = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding']);
      const headers = Object.fromEntries([...detail.headers].filter(([name]) => !own.has(name)));
      const headersFile = join(dirname(file), 'headers.json');
      writeFileSync(headersFile, JSON.stringify(headers));
      const server = await startServer('reference with obligations', referenceArgs(file, headersFile), {}, referenceUrl);
      servers.push(server);
      return server;
    };

    const rows: string[] = [];
    const results = new Map<string, Stats>();
    const references: Stats[] = [];
    for (const c of cases().filter((c) => !ONLY || ONLY.includes(c.name))) {
      const server = c.upstream ? upstream : c.obligations ? await obligationsReference() : gateway;
      if (c.upstream) await warm(upstream.url, c.paths);
      const { ref, gateway: s } = await measure(reference, server, c.paths, c.expect);
      references.push(ref);
      results.set(c.name, s);
      process.stderr.write(`${c.name}: ${fmt(s.rps)} req/s, ${fmt(s.cpuUs)} µs CPU/request (reference in turn: ${fmt(ref.cpuUs)} µs)\n`);
      rows.push(
        `| ${c.name} | ${fmt(s.rps)} | ${fmt(s.p99, 1)} | ${fmt(s.cpuUs)} | ${fmt(ref.cpuUs)} | ${fmt(ref.cpuUs / s.cpuUs, 2)} | ${fmt(s.rps / ref.rps, 2)} | ${s.failures} |`,
      );
    }
    const ref = added(references);
    const rssAfter = rssMb(gateway.child.pid!);
    const v1 = results.get('v1 page') ?? { cpuUs: NaN };
    const v2 = results.get('v2 page') ?? { cpuUs: NaN };

    console.log(
      `\n${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}, ${CONNECTIONS} connections, ${SECONDS} s per case and of the reference in ${SLICES} turns, after ${WARM_UP} s of warm-up of each; ${pinning()}`,
    );
    console.log(`gateway: node ${args.join(' ')} in ${GATEWAY_DIR}`);
    console.log(`reference over the run: ${fmt(ref.rps)} req/s, p99 ${fmt(ref.p99, 1)} ms, ${fmt(ref.cpuUs)} µs CPU/request, ${ref.failures} non-2xx/errors`);
    console.log(
      '\n| case | req/s | p99 ms | CPU µs/request | reference in turn: CPU µs/request | ratio (reference CPU / CPU) | req/s ratio | non-2xx/errors |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const row of rows) console.log(row);
    console.log(`\nv1 page / v2 page (CPU): ${fmt(v2.cpuUs / v1.cpuUs, 2)}`);
    if (!ONLY || ONLY.includes(OBSERVABILITY_CASE)) {
      const pages = Array.from({ length: DISTINCT }, (_, k) => `/v2/species?page=${k + 1}`);
      console.log(await observabilityCost(GATEWAY_DIR, pages, load, WARM_UP));
    }
    console.log(
      `bundled gateway start-up: ${(JSON.parse(gateway.line) as { startup_ms?: number }).startup_ms ?? 'n/a'} ms in-process (its log line), ${fmt(gateway.startedMs)} ms from spawn to listening`,
    );
    console.log(`bundled gateway RSS: ${fmt(rssStart)} MB at start, ${fmt(rssAfter)} MB after the load`);
  } finally {
    for (const s of servers) s.child.kill('SIGTERM');
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
