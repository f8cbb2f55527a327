/**
 * `npm run bench:memory`: memory is bounded by configuration, not by traffic (docs/reference/operations.md).
 * Starts the gateway as `npm start` runs it (bench/processes.ts), drives the soak's mix
 * (bench/soak.ts) for `BENCH_MEMORY_MINUTES` (default 5), then 200,000 distinct search terms,
 * 200,000 unique query strings and 50,000 unknown ids; at the end collects garbage in the gateway
 * through its inspector (bench/inspector.ts) and prints what it keeps alive (heap and external
 * memory) beside the budget, the README's cache caps plus the dataset's working set, and its RSS
 * beside 256 MB, as PASS/FAIL lines. `BENCH_MEMORY_DIR` benchmarks another checkout (a worktree of
 * main, for a before/after) against the same budget. Not part of `npm test`.
 */
import { cpus, loadavg } from 'node:os';
import autocannon from 'autocannon';
import { liveMemory } from './inspector';
import { freePort } from '../tools/processes';
import { productionArgs, rssMb, startGateway, withNodeFlags } from './processes';
import { plan } from './soak';
import { CACHE_CAPS, DATASET_WORKING_SET_BYTES } from './memory-budget';

const MINUTES = Number(process.env.BENCH_MEMORY_MINUTES ?? 5);
const DISTINCT = Number(process.env.BENCH_MEMORY_DISTINCT ?? 200_000);
const DIR = process.env.BENCH_MEMORY_DIR;
const CONNECTIONS = 8;
const KEY = 'ApiKey demo-project-key';
const RSS_BOUND_MB = 256;
const MB = 2 ** 20;

if (!Number.isFinite(MINUTES) || MINUTES < 0) throw new Error(`BENCH_MEMORY_MINUTES must be a number >= 0 (got ${process.env.BENCH_MEMORY_MINUTES})`);

/** `amount` requests whose paths `pathOf(k)` builds, over `CONNECTIONS` connections; the answers by status. */
async function drive(url: string, amount: number, pathOf: (k: number) => string): Promise<string> {
  let k = 0;
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    amount,
    requests: [{ setupRequest: (req) => ({ ...req, method: 'GET', path: pathOf(k++), headers: { authorization: KEY } }) }],
  });
  return Object.entries(result.statusCodeStats ?? {})
    .map(([status, { count }]) => `${status}: ${count}`)
    .join(', ');
}

/** A search term no two requests share: letters only, so it passes the `q` rules. */
const term = (k: number) =>
  k
    .toString(26)
    .split('')
    .map((d) => String.fromCharCode(97 + Number.parseInt(d, 26)))
    .join('');

async function main(): Promise<void> {
  const inspectorPort = await freePort();
  const args = withNodeFlags(productionArgs(DIR), `--inspect=127.0.0.1:${inspectorPort}`);
  const { child, url } = await startGateway('gateway', { TOKEN_RATE_LIMIT_PER_MINUTE: '1000000000', AUTH_FAILURES_PER_MINUTE: '1000000000' }, args, DIR);
  const budgetBytes = Object.values(CACHE_CAPS).reduce((a, b) => a + b, 0) + DATASET_WORKING_SET_BYTES;
  try {
    console.log(
      `bench:memory: ${DIR ?? 'this checkout'}, ${MINUTES} min of the soak's mix, then ${DISTINCT} distinct searches, ${DISTINCT} unique query strings, ${DISTINCT / 4} unknown ids; ` +
        `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}, Node ${process.version}, load average ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
    );
    const start = await liveMemory(inspectorPort);
    console.log(`start: heap ${start.heapMb.toFixed(1)} MB + external ${start.externalMb.toFixed(1)} MB, RSS ${rssMb(child.pid!).toFixed(0)} MB`);
    if (MINUTES > 0) {
      const mix = plan();
      let i = 0;
      const mixed = await autocannon({
        url,
        connections: CONNECTIONS,
        duration: MINUTES * 60,
        requests: [{ setupRequest: (req) => ({ ...req, ...mix[i++ % mix.length]! }) }],
      });
      console.log(`mixed load: ${mixed.requests.total} requests, ${mixed.errors} errors; RSS ${rssMb(child.pid!).toFixed(0)} MB`);
    }
    console.log(`distinct searches: ${await drive(url, DISTINCT, (k) => `/v2/species?q=${term(k)}`)}; RSS ${rssMb(child.pid!).toFixed(0)} MB`);
    console.log(
      `unique query strings: ${await drive(url, DISTINCT, (k) => `/v2/species?page=${1 + (k % 50)}&order[common_name]=${k % 2 ? 'asc' : 'desc'}&n${k}=${k}`)}; RSS ${rssMb(child.pid!).toFixed(0)} MB`,
    );
    console.log(`unknown ids: ${await drive(url, DISTINCT / 4, (k) => `/v2/species/NOPE${k}`)}; RSS ${rssMb(child.pid!).toFixed(0)} MB`);

    const end = await liveMemory(inspectorPort);
    const rss = rssMb(child.pid!);
    const kept = end.heapMb + end.externalMb;
    const budget = budgetBytes / MB;
    console.log(
      `kept after a full collection: heap used ${end.heapMb.toFixed(1)} MB + external ${end.externalMb.toFixed(1)} MB = ${kept.toFixed(1)} MB; ` +
        `budget ${budget.toFixed(1)} MB (caches ${((budgetBytes - DATASET_WORKING_SET_BYTES) / MB).toFixed(1)} MB + dataset working set ${(DATASET_WORKING_SET_BYTES / MB).toFixed(1)} MB): ${kept <= budget ? 'PASS' : 'FAIL'}`,
    );
    console.log(`RSS ${rss.toFixed(0)} MB; bound ${RSS_BOUND_MB} MB: ${rss <= RSS_BOUND_MB ? 'PASS' : 'FAIL'}`);
    console.log(
      `load average at the end: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    child.kill('SIGTERM');
  }
}

await main();
