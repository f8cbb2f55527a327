/**
 * What observing the gateway costs, for `npm run bench:http`'s `observability` case: the same v2
 * pages on gateways started side by side for it, fresh, and differing only in what they export.
 *
 * - `control`: a second gateway exactly like the first. Its ratio is the harness's own noise
 *   floor: what two identical processes differ by on this machine in these minutes.
 * - `metrics`: `METRICS_PORT` set, scraped every `BENCH_SCRAPE_MS` as a Prometheus server would.
 * - `otlp`: `OTEL_EXPORTER_OTLP_ENDPOINT` set to a receiver in this process that takes the exports.
 * - `before` (with `BENCH_BEFORE_DIR`, one checkout or several separated by commas): other
 *   checkouts' gateways, for what a change costs (trace context has no switch: it is measured
 *   against the code before it).
 *
 * Each round drives every gateway for `BENCH_PAIR_SECONDS` in an order rotated by one per round,
 * so a trend in the machine's load weighs on all alike; each variant's ratios are taken against
 * the plain gateway of the same round.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { added, type Stats } from './load-stats';
import { productionArgs, type Server, startGateway } from './processes';

interface VariantResult {
  name: string;
  /** req/s and CPU µs per request of the variant over the plain gateway's, from the totals. */
  rps: number;
  cpu: number;
  /** The same ratio per round, sorted. */
  rpsRounds: number[];
  cpuRounds: number[];
}

const ROUNDS = Number(process.env.BENCH_PAIRS ?? 20);
const ROUND_SECONDS = Number(process.env.BENCH_PAIR_SECONDS ?? 1);
const SCRAPE_MS = Number(process.env.BENCH_SCRAPE_MS ?? 15_000);
const BEFORE_DIRS = process.env.BENCH_BEFORE_DIR?.split(',').filter(Boolean) ?? [];

/** A stand-in OTLP/HTTP collector: answers every export with 200 and counts them. */
async function otlpReceiver(): Promise<{ server: HttpServer; url: string; exports: () => number }> {
  let exports = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      exports++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, exports: () => exports };
}

const median = (xs: number[]) => (xs[(xs.length - 1) >> 1]! + xs[xs.length >> 1]!) / 2;

/**
 * Starts the plain gateway and the variants, drives them in rotated rounds with `load`, and
 * returns the table of each variant's ratios against the plain one, to print.
 */
export async function observabilityCost(
  dir: string,
  paths: string[],
  load: (server: Server, paths: string[], seconds: number) => Promise<Stats>,
  warmUpSeconds: number,
): Promise<string> {
  const args = productionArgs(dir);
  const receiver = await otlpReceiver();
  const servers: Server[] = [];
  let scraping: ReturnType<typeof setInterval> | undefined;
  try {
    const start = async (name: string, env: Record<string, string>, at = dir) => {
      const s = await startGateway(name, env, at === dir ? args : productionArgs(at), at);
      servers.push(s);
      return s;
    };
    const plain = await start('plain', {});
    const metered = await start('metrics', { METRICS_PORT: '0' });
    const variants: Array<{ name: string; server: Server }> = [
      { name: 'control (a second plain gateway)', server: await start('control', {}) },
      { name: `metrics (METRICS_PORT, scraped every ${SCRAPE_MS / 1000} s)`, server: metered },
      { name: 'OTLP export (OTEL_EXPORTER_OTLP_ENDPOINT)', server: await start('otlp', { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }) },
    ];
    for (const before of BEFORE_DIRS) variants.push({ name: `other checkout (${before})`, server: await start(before, {}, before) });
    const metricsPort = (JSON.parse(metered.line) as { metrics?: { port: number } | null }).metrics?.port;
    if (!metricsPort) throw new Error(`${dir}: the gateway does not announce a metrics listener`);
    scraping = setInterval(() => {
      fetch(`http://127.0.0.1:${metricsPort}/metrics`).then(
        (r) => r.arrayBuffer(),
        () => {},
      );
    }, SCRAPE_MS);

    const all = [plain, ...variants.map((v) => v.server)];
    for (const s of all) await load(s, paths, warmUpSeconds);
    const rounds: Stats[][] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const round: Stats[] = new Array(all.length);
      for (let k = 0; k < all.length; k++) {
        const at = (k + r) % all.length;
        round[at] = await load(all[at]!, paths, ROUND_SECONDS);
      }
      rounds.push(round);
    }
    const base = added(rounds.map((round) => round[0]!));
    const results: VariantResult[] = variants.map((v, k) => {
      const mine = added(rounds.map((round) => round[k + 1]!));
      return {
        name: v.name,
        rps: mine.rps / base.rps,
        cpu: mine.cpuUs / base.cpuUs,
        rpsRounds: rounds.map((round) => round[k + 1]!.rps / round[0]!.rps).sort((a, b) => a - b),
        cpuRounds: rounds.map((round) => round[k + 1]!.cpuUs / round[0]!.cpuUs).sort((a, b) => a - b),
      };
    });
    const f = (n: number) => n.toFixed(3);
    const lines = [
      `\nv2 page, observability on / off: ${ROUNDS} rounds of ${ROUND_SECONDS} s on each gateway, order rotated each round; plain gateway ${base.rps.toFixed(0)} req/s, ${base.cpuUs.toFixed(1)} µs CPU/request`,
      '| variant / plain | req/s (totals) | req/s per round: median, range | CPU µs/request (totals) | CPU per round: median |',
      '|---|---:|---|---:|---:|',
      ...results.map(
        (v) =>
          `| ${v.name} | ${f(v.rps)} | ${f(median(v.rpsRounds))}, ${f(v.rpsRounds[0]!)}-${f(v.rpsRounds.at(-1)!)} | ${f(v.cpu)} | ${f(median(v.cpuRounds))} |`,
      ),
      `OTLP exports received: ${receiver.exports()}`,
    ];
    return lines.join('\n');
  } finally {
    if (scraping) clearInterval(scraping);
    for (const s of servers) s.child.kill('SIGTERM');
    receiver.server.close();
  }
}
