/**
 * What observing the gateway costs, for `npm run bench:http`'s `observability` case: the same v2
 * pages on gateways started side by side for it, fresh, and differing only in what they export.
 *
 * - `control`: more gateways exactly like the plain ones. Its ratio is the harness's own noise
 *   floor: what identical processes differ by on this machine in these minutes.
 * - `metrics`: `METRICS_PORT` set, scraped every `BENCH_SCRAPE_MS` as a Prometheus server would.
 * - `otlp`: `OTEL_EXPORTER_OTLP_ENDPOINT` set to a receiver in this process that takes the exports.
 * - `without trace context`: `BENCH_WITHOUT_TRACE_CONTEXT=1`, the Node entry's benchmark switch
 *   (no trace id drawn, no `time`, `trace_id` or `client_request_id` in the access line).
 * - `before` (with `BENCH_BEFORE_DIR`, one checkout or several separated by commas): other
 *   checkouts' gateways, for what a change costs.
 *
 * Every variant runs in `BENCH_INSTANCES` processes (3), and in each of them beside a plain
 * gateway: a process hosts one gateway of every variant (`bench/gateway-host.mjs`), each its own
 * copy of the built code, so a variant is compared with the plain gateway of its own process (two
 * processes of the same build can differ by 10 % for as long as they live; copies in one process
 * meet the same heap, collector and machine). The OTLP variant runs in processes of its own: its
 * exporter works on timers, which would bill its work to whichever gateway is driven then.
 * Each round drives every gateway for `BENCH_PAIR_SECONDS` in an order rotated by one per round,
 * so a trend in the machine's load weighs on all alike.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { added, type Stats } from './load-stats';
import { type HostedGateway, pinning, type Server, startGatewayHost } from './processes';

interface VariantResult {
  name: string;
  /** req/s and CPU µs per request of the variant over the plain gateway's, from the totals. */
  rps: number;
  cpu: number;
  /** The same ratio per round, sorted. */
  rpsRounds: number[];
  cpuRounds: number[];
  /** req/s over the plain gateway's in each process (or, for a variant in processes of its own, the plain gateway of the same turn). */
  rpsInstances: number[];
}

const ROUNDS = Number(process.env.BENCH_PAIRS ?? 20);
const ROUND_SECONDS = Number(process.env.BENCH_PAIR_SECONDS ?? 1);
const SCRAPE_MS = Number(process.env.BENCH_SCRAPE_MS ?? 15_000);
const BEFORE_DIRS = process.env.BENCH_BEFORE_DIR?.split(',').filter(Boolean) ?? [];
/** Processes hosting the variants: each holds one gateway of every variant but OTLP. */
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

/** Student's t for a two-sided 95 % interval with `df` degrees of freedom (from a table to 10, then within 0.2 % of it). */
const T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228];
const t95 = (df: number) => T95[df - 1] ?? 1.96 + 2.5 / df;

/** The mean of `xs` and its 95 % interval, as `mean (low-high)`: what the processes' ratios say of the variant's. */
function meanInterval(xs: number[]): string {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  if (xs.length < 2) return mean.toFixed(3);
  const sd = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1));
  const half = (t95(xs.length - 1) * sd) / Math.sqrt(xs.length);
  return `${mean.toFixed(3)} (${(mean - half).toFixed(3)}-${(mean + half).toFixed(3)})`;
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
  const receiver = await otlpReceiver();
  const started: Server[][] = [];
  let scraping: ReturnType<typeof setInterval> | undefined;
  try {
    const metricsKind = { name: `metrics (METRICS_PORT, scraped every ${SCRAPE_MS / 1000} s)`, env: { METRICS_PORT: '0' }, dir, own: false };
    // The Node entry's benchmark switch (src/policies/index.ts, PolicyOptions): no trace id, no trace members in the log line.
    const untracedKind = { name: 'without trace context (nor metrics)', env: { BENCH_WITHOUT_TRACE_CONTEXT: '1' }, dir, own: false };
    const kinds: Array<HostedGateway & { name: string; own: boolean }> = [
      { name: 'plain', env: {}, dir, own: false },
      { name: 'control (another plain gateway)', env: {}, dir, own: false },
      metricsKind,
      untracedKind,
      ...BEFORE_DIRS.map((before) => ({ name: `other checkout (${before})`, env: {}, dir: before, own: false })),
      { name: 'OTLP export (OTEL_EXPORTER_OTLP_ENDPOINT), own processes', env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }, dir, own: true },
    ];
    const hosted = kinds.filter((kind) => !kind.own);
    // started[i][k]: the gateway of kinds[i] in turn k.
    for (const _ of kinds) started.push([]);
    for (let k = 0; k < INSTANCES; k++) {
      // Each process starts its gateways in an order rotated by one, so that no variant is always
      // the first one (or the last) to be loaded and warmed in its process.
      const order = hosted.map((_, j) => hosted[(j + k) % hosted.length]!);
      const shared = await startGatewayHost(`variants ${k + 1}`, order);
      for (const [j, kind] of order.entries()) started[kinds.indexOf(kind)]![k] = shared[j]!;
      for (const kind of kinds.filter((kind) => kind.own)) started[kinds.indexOf(kind)]![k] = (await startGatewayHost(`${kind.name} ${k + 1}`, [kind]))[0]!;
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
    /** One gateway's slices added up. */
    const alone = (s: Server) => added(slices[all.indexOf(s)]!);
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
        rpsInstances: v.servers.map((s, k) => alone(s).rps / alone(plain[k]!).rps),
      };
    });
    const f = (n: number) => n.toFixed(3);
    const lines = [
      `\nv2 page, observability on / off: ${INSTANCES} processes each hosting a gateway of every variant (OTLP: processes of its own), ${ROUNDS} rounds of ${ROUND_SECONDS} s on each process, order rotated each round, ${pinning()}; plain gateway ${base.rps.toFixed(0)} req/s, ${base.cpuUs.toFixed(1)} µs CPU/request`,
      '| variant / plain | req/s (totals) | req/s per round: median, range | CPU µs/request (totals) | CPU per round: median | req/s in each process | processes: mean (95 % interval) |',
      '|---|---:|---|---:|---:|---|---|',
      ...results.map(
        (v) =>
          `| ${v.name} | ${f(v.rps)} | ${f(median(v.rpsRounds))}, ${f(v.rpsRounds[0]!)}-${f(v.rpsRounds.at(-1)!)} | ${f(v.cpu)} | ${f(median(v.cpuRounds))} | ${v.rpsInstances.map(f).join(', ')} | ${meanInterval(v.rpsInstances)} |`,
      ),
      // docs/reference/observability.md's figure: metrics and trace context against neither, process by process.
      ...[untracedKind, ...kinds.filter((kind) => BEFORE_DIRS.includes(kind.dir))].map((kind) => {
        const other = started[kinds.indexOf(kind)]!;
        const perProcess = metered.map((s, k) => alone(s).rps / alone(other[k]!).rps);
        return `metrics gateway / ${kind.name}, req/s: ${f(total(metered).rps / total(other).rps)} by totals; in each process ${perProcess.map(f).join(', ')}; their mean (95 % interval) ${meanInterval(perProcess)}`;
      }),
      `OTLP exports received: ${receiver.exports()}`,
    ];
    return lines.join('\n');
  } finally {
    if (scraping) clearInterval(scraping);
    for (const child of new Set(started.flat().map((s) => s.child))) child.kill('SIGTERM');
    receiver.server.close();
  }
}
