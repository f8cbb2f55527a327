/**
 * What observing the gateway costs, for `npm run bench:http`'s `observability` case: the same v2
 * pages on gateways started side by side for it, fresh, and differing only in what they export.
 *
 * - `control`: more gateways exactly like the plain ones. Its ratio is the harness's own noise
 *   floor: what identical processes differ by on this machine in these minutes.
 * - `metrics`: `METRICS_PORT` set, scraped every `BENCH_SCRAPE_MS` as a Prometheus server would.
 * - `otlp`: `OTEL_EXPORTER_OTLP_ENDPOINT` set to a receiver in this process that takes the exports.
 * - `before` (with `BENCH_BEFORE_DIR`, one checkout or several separated by commas): other
 *   checkouts' gateways, for what a change costs (trace context has no switch: it is measured
 *   against the code before it).
 *
 * Every variant runs as `BENCH_INSTANCES` processes (3). Each round drives every process for
 * `BENCH_PAIR_SECONDS` in an order rotated by one per round, so a trend in the machine's load
 * weighs on all alike; each variant's ratios are taken against the plain gateways of the same round.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { added, type Stats } from './load-stats';
import { pinning, productionArgs, type Server, startGateway } from './processes';

interface VariantResult {
  name: string;
  /** req/s and CPU µs per request of the variant over the plain gateway's, from the totals. */
  rps: number;
  cpu: number;
  /** The same ratio per round, sorted. */
  rpsRounds: number[];
  cpuRounds: number[];
  /** Each of the variant's processes' CPU µs per request over the plain gateways'. */
  cpuInstances: number[];
}

const ROUNDS = Number(process.env.BENCH_PAIRS ?? 20);
const ROUND_SECONDS = Number(process.env.BENCH_PAIR_SECONDS ?? 1);
const SCRAPE_MS = Number(process.env.BENCH_SCRAPE_MS ?? 15_000);
const BEFORE_DIRS = process.env.BENCH_BEFORE_DIR?.split(',').filter(Boolean) ?? [];
/**
 * Processes of each variant. Two processes of the same code can differ by several per cent for
 * as long as they live (what the JIT made of them, where their heap landed), so one of each
 * compares processes as much as variants.
 */
const INSTANCES = Number(process.env.BENCH_INSTANCES ?? 3);

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
    // The processes are started in turns, one of each variant per turn, so that none is made of
    // only the first (or the last) processes started.
    const metricsKind = { name: `metrics (METRICS_PORT, scraped every ${SCRAPE_MS / 1000} s)`, env: { METRICS_PORT: '0' }, at: dir };
    const kinds: Array<{ name: string; env: Record<string, string>; at: string }> = [
      { name: 'plain', env: {}, at: dir },
      { name: 'control (more plain gateways)', env: {}, at: dir },
      metricsKind,
      { name: 'OTLP export (OTEL_EXPORTER_OTLP_ENDPOINT)', env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }, at: dir },
      ...BEFORE_DIRS.map((before) => ({ name: `other checkout (${before})`, env: {}, at: before })),
    ];
    const started: Server[][] = kinds.map(() => []);
    for (let k = 0; k < INSTANCES; k++) {
      for (const [i, kind] of kinds.entries()) started[i]!.push(await start(`${kind.name} ${k + 1}`, kind.env, kind.at));
    }
    const [plain, ...others] = started as [Server[], ...Server[][]];
    const variants = others.map((servers, i) => ({ name: kinds[i + 1]!.name, servers }));
    const metered = started[kinds.indexOf(metricsKind)]!;
    const metricsPorts = metered.map((s) => (JSON.parse(s.line) as { metrics?: { port: number } | null }).metrics?.port);
    if (metricsPorts.some((port) => !port)) throw new Error(`${dir}: the gateway does not announce a metrics listener`);
    scraping = setInterval(() => {
      for (const port of metricsPorts)
        fetch(`http://127.0.0.1:${port}/metrics`).then(
          (r) => r.arrayBuffer(),
          () => {},
        );
    }, SCRAPE_MS);

    const all = started.flat();
    for (const s of all) await load(s, paths, warmUpSeconds);
    /** slices[i][r]: process i of `all` in round r. */
    const slices: Stats[][] = all.map(() => []);
    for (let r = 0; r < ROUNDS; r++) {
      for (let k = 0; k < all.length; k++) {
        const at = (k + r) % all.length;
        slices[at]![r] = await load(all[at]!, paths, ROUND_SECONDS);
      }
    }
    const of = (group: Server[]) => group.map((s) => slices[all.indexOf(s)]!);
    const total = (group: Server[]) => added(of(group).flat());
    const inRound = (group: Server[], r: number) => added(of(group).map((mine) => mine[r]!));
    const base = total(plain);
    const results: VariantResult[] = variants.map((v) => {
      const mine = total(v.servers);
      const rounds = Array.from({ length: ROUNDS }, (_, r) => [inRound(v.servers, r), inRound(plain, r)] as const);
      return {
        name: v.name,
        rps: mine.rps / base.rps,
        cpu: mine.cpuUs / base.cpuUs,
        rpsRounds: rounds.map(([a, b]) => a.rps / b.rps).sort((a, b) => a - b),
        cpuRounds: rounds.map(([a, b]) => a.cpuUs / b.cpuUs).sort((a, b) => a - b),
        cpuInstances: of(v.servers).map((mine) => added(mine).cpuUs / base.cpuUs),
      };
    });
    const f = (n: number) => n.toFixed(3);
    const lines = [
      `\nv2 page, observability on / off: ${INSTANCES} processes of each variant, ${ROUNDS} rounds of ${ROUND_SECONDS} s on each process, order rotated each round, ${pinning()}; plain gateway ${base.rps.toFixed(0)} req/s, ${base.cpuUs.toFixed(1)} µs CPU/request`,
      '| variant / plain | req/s (totals) | req/s per round: median, range | CPU µs/request (totals) | CPU per round: median | CPU of each process |',
      '|---|---:|---|---:|---:|---|',
      ...results.map(
        (v) =>
          `| ${v.name} | ${f(v.rps)} | ${f(median(v.rpsRounds))}, ${f(v.rpsRounds[0]!)}-${f(v.rpsRounds.at(-1)!)} | ${f(v.cpu)} | ${f(median(v.cpuRounds))} | ${v.cpuInstances.map(f).join(', ')} |`,
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
