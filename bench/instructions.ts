/**
 * `npm run bench:instructions`: CPU per request as instructions (requests a second here vary 2x
 * between runs; instruction counts, taken one server at a time on a quiet machine, repeat within a
 * few per cent).
 *
 * Each server runs under `valgrind --tool=callgrind node --single-threaded`: the floors
 * (`bench/instructions-floor.mjs`: bare `node:http`, then Hono on `@hono/node-server`, both
 * answering a real 13 KB gateway page already serialized) and the production build of the gateway
 * as `npm start` runs it (the build as it was when the run began: `builtOnce`), over its bundled
 * data; every server under `npm start`'s Node flags. Callgrind starts with its instrumentation off,
 * so a server runs about three times faster until it is counted. Each route is counted in a gateway
 * process of its own, after the same history: `WARM_UP` requests over every route, so code they
 * share has settled as it would in production, then `ROUTE_WARM_UP` of the route itself, uncounted
 * (V8 moves a function called once a request from Maglev's code to TurboFan's only after some
 * 10,000 calls, `--trace-opt`, and a count taken before that measures the compiler, not the
 * request). In one process for every route, what a route cost depended on the routes counted before
 * it: V8's pretenuring and its major collections follow the whole process's allocations, and one
 * route or another stayed a third dearer for a whole run, a different one from run to run. Then
 * instrumentation is switched on (`callgrind_control -i on`) and the route counted in `WINDOWS`
 * windows of `WINDOW` requests, each on its own (`-z` before it, `-d` after: callgrind itself does
 * the counting and the dumping, so neither costs the server an instruction). The figure is the
 * median window's instructions divided by its requests. A window of 500 holds a few
 * young-generation collections, which are counted; now and then one also holds a major collection's
 * marking, which adds up to half as much again, and which a mean takes in or not by chance. The
 * median leaves those out, so the figure is what a request costs between them, and it repeats. Each
 * floor is counted in `FLOOR_PROCESSES` processes and its figure is the least of theirs: a floor
 * process settles at one of two counts about 8 % apart (67 and 73 k for Hono's), which one drawn
 * per process, and a median of three drew either; the least is the floor's cheaper state in every
 * run, and the stricter ratio. Requests are sequential over one keep-alive connection per server,
 * from this process (outside valgrind); every answer's status is checked. One server is counted at
 * a time (`BENCH_PARALLEL` for more): the gateway's count does depend on the machine's load. With
 * four servers counted at once on two cores, search, the sorted page and detail counted 250-270 k a
 * request in most windows; one at a time on a quiet machine, 152-157 k in every window. (What grows
 * was not found; work done by the clock rather than by the request, of which each request pays more
 * the slower requests go, is the likely kind.) Printed as instructions a request and as a ratio to
 * the Hono floor measured in the same run. `BENCH_GATEWAY_DIR` counts another checkout's gateway
 * (built there first) against this run's floors, for a before and after.
 *
 *   npm run bench:instructions                     # every route
 *   BENCH_ROUTES='v2 page,v1 page' npm run bench:instructions
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, startProcess, type Started } from '../tools/processes';
import { BENCH_GATEWAY_ENV, gatewayUrl, productionArgs, productionNodeFlags } from './processes';
import { median } from './median';
import { chosenRoutes, closeClient, FLOOR_ROUTE, KEY, type Route, send, sendAll, warmUp } from './route-kinds';

const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 4_000);
const ROUTE_WARM_UP = Number(process.env.BENCH_ROUTE_WARM_UP ?? 12_000);
const WINDOW = Number(process.env.BENCH_WINDOW ?? 500);
const WINDOWS = Number(process.env.BENCH_WINDOWS ?? 9);
const FLOOR_PROCESSES = Number(process.env.BENCH_FLOOR_PROCESSES ?? 3);
const PARALLEL = Number(process.env.BENCH_PARALLEL ?? 1);
const run = promisify(execFile);
const DIR = mkdtempSync(join(tmpdir(), 'bench-instructions-'));
/** No limit reached in a run: the token route asks hundreds of times a minute. */
const GATEWAY_ENV = { ...BENCH_GATEWAY_ENV, TOKEN_RATE_LIMIT_PER_MINUTE: '1000000000' };

/** A server under callgrind, its instrumentation off until a route is counted. */
function underCallgrind(
  name: string,
  args: string[],
  env: Record<string, string>,
  urlOf: (line: string) => string | undefined,
  cwd?: string,
): Promise<Started<string>> {
  const callgrind = ['--tool=callgrind', '--dump-instr=no', '--instr-atstart=no', `--callgrind-out-file=${join(DIR, `${name}.%p`)}`];
  return startProcess({
    command: 'valgrind',
    // One hash seed and random seed in every run: V8 draws both per process, and two runs without
    // them differed by about 8 % on every route (with them, most routes agree within 1 %).
    args: [...callgrind, process.execPath, '--single-threaded', '--hash-seed=1', '--random-seed=1', ...args],
    ...(cwd ? { cwd } : {}),
    env,
    ready: urlOf,
    keepLines: false,
    guardMs: 600_000,
  });
}

/** The total instructions of the newest dump named `<prefix>.<n>`. */
function lastDumpIr(prefix: string): number {
  // `<prefix>.<n>`: the n-th dump `callgrind_control -d` asked for.
  const dumps = readdirSync(DIR)
    .filter((f) => f.startsWith(`${prefix}.`) && /^\d+$/.test(f.slice(prefix.length + 1)))
    .sort((a, b) => Number(a.slice(prefix.length + 1)) - Number(b.slice(prefix.length + 1)));
  const text = readFileSync(join(DIR, dumps.at(-1)!), 'utf8');
  const total = /^(?:summary|totals): (\d+)/m.exec(text);
  if (!total) throw new Error(`no totals in ${dumps.at(-1)}`);
  return Number(total[1]);
}

/** Asked without blocking: the other server counted at the same time goes on meanwhile. */
const control = (flags: string[], pid: number) => run('callgrind_control', [...flags, String(pid)]);

/** A route's windows, instructions a request each, least first: `WINDOWS` windows of `WINDOW` requests. */
async function windowsOf(server: Started<string>, name: string, route: Route): Promise<number[]> {
  const pid = server.child.pid!;
  await sendAll(server.ready!, route, ROUTE_WARM_UP);
  await control(['-i', 'on'], pid);
  const windows: number[] = [];
  for (let w = 0; w < WINDOWS; w++) {
    await control(['-z'], pid);
    await sendAll(server.ready!, route, WINDOW);
    await control(['-d'], pid);
    windows.push(lastDumpIr(`${name}.${pid}`) / WINDOW);
  }
  return windows.sort((a, b) => a - b);
}

const FLOORS = ['node', 'hono', 'hono-headers'] as const;
const FLOOR_NAMES: Record<(typeof FLOORS)[number], string> = {
  node: 'bare node:http, the page pre-serialized',
  hono: 'Hono on @hono/node-server, the same (the floor)',
  'hono-headers': "the same with the gateway's response headers",
};
/** What Node adds to every answer itself; the rest is what the gateway chose to send. */
const NODE_OWN = new Set(['content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding']);

/** The response headers the gateway sends with `route`'s first answer, but those Node adds itself. */
async function answerHeaders(origin: string, route: Route): Promise<Record<string, string>> {
  const res = await fetch(new URL(route.paths[0]!, origin), { headers: route.headers ?? { authorization: `ApiKey ${KEY}` } });
  await res.arrayBuffer();
  return Object.fromEntries([...res.headers].filter(([name]) => !NODE_OWN.has(name)));
}

const portUrl = (line: string) => (line.startsWith('{"port"') ? `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}` : undefined);

/** Runs `tasks`, `PARALLEL` at once; their results in the tasks' order. */
async function inTurns<T>(tasks: Array<() => Promise<T>>): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, tasks.length) }, worker));
  return results;
}

/**
 * `npm start`'s command line, its built bundle swapped for a copy made now, beside it (so its
 * paths resolve as the bundle's), removed when this process exits: each route starts a gateway of
 * its own over the run, and `npm start` builds again whenever a source has changed, so an edit or
 * a test's build during the run would count later routes on other code. A checkout from before
 * the production build runs its sources as they are.
 */
function builtOnce(dir: string = ROOT): string[] {
  const args = productionArgs(dir);
  if (args.at(-1) !== 'scripts/start.mjs') return args;
  const copy = join(dir, 'dist', `node.bench-${process.pid}.js`);
  copyFileSync(join(dir, 'dist/node.js'), copy);
  process.once('exit', () => rmSync(copy, { force: true }));
  return [...productionNodeFlags(dir), copy];
}

async function main(): Promise<void> {
  const load = loadavg()[0]!.toFixed(2);
  const gatewayDir = process.env.BENCH_GATEWAY_DIR;
  const gatewayArgs = builtOnce(gatewayDir);
  // The page the floors answer (`FLOOR_ROUTE`), as the gateway renders it.
  const body = join(DIR, 'page.json');
  const headers = join(DIR, 'headers.json');
  {
    const plain = await startProcess({
      command: process.execPath,
      args: gatewayArgs,
      ...(gatewayDir ? { cwd: gatewayDir } : {}),
      env: GATEWAY_ENV,
      ready: gatewayUrl,
      keepLines: false,
    });
    writeFileSync(body, await send(plain.ready!, FLOOR_ROUTE, 0));
    writeFileSync(headers, JSON.stringify(await answerHeaders(plain.ready!, FLOOR_ROUTE)));
    await plain.stop();
  }
  // The floors run under the production command line's Node flags too (its heap sizes): the
  // stack as the gateway runs on it, so the ratio is the gateway's own work.
  const floorCount = (kind: (typeof FLOORS)[number], n: number) => async () => {
    const server = await underCallgrind(kind, [...productionNodeFlags(), 'bench/instructions-floor.mjs', kind, body, headers], {}, portUrl);
    const windows = await windowsOf(server, kind, FLOOR_ROUTE);
    await server.stop();
    return { name: `${kind} process ${n + 1}`, windows };
  };
  const measured = chosenRoutes();
  const routeCount = (route: Route) => async () => {
    const gateway = await underCallgrind('gateway', gatewayArgs, GATEWAY_ENV, gatewayUrl, gatewayDir);
    await warmUp(gateway.ready!, measured, WARM_UP);
    const windows = await windowsOf(gateway, 'gateway', route);
    await gateway.stop();
    return { name: `gateway ${route.name}`, windows };
  };
  const floorTasks = FLOORS.flatMap((kind) => Array.from({ length: FLOOR_PROCESSES }, (_, n) => floorCount(kind, n)));
  const counts = await inTurns([...floorTasks, ...measured.map(routeCount)]);
  closeClient();

  // A server's figure is its median window; a floor's, the least of its processes' figures.
  const figures = counts.map(({ windows }) => median(windows));
  const rows: Array<[string, number]> = FLOORS.map((kind, k) => [
    FLOOR_NAMES[kind],
    Math.min(...figures.slice(k * FLOOR_PROCESSES, (k + 1) * FLOOR_PROCESSES)),
  ]);
  const label = gatewayDir ? `gateway (${gatewayDir})` : 'gateway';
  for (const [i, route] of measured.entries()) rows.push([`${label}: ${route.name}`, figures[floorTasks.length + i]!]);
  const floor = rows[1]![1];
  const sameAnswer = rows[2]![1];
  console.log(
    `\nInstructions a request (callgrind, the median of ${WINDOWS} windows of ${WINDOW} requests; each route in a gateway process of its own, after ${WARM_UP} requests over every route and ${ROUTE_WARM_UP} of its own, uncounted; each floor the least of ${FLOOR_PROCESSES} processes); Node ${process.version}; load average ${load} at the start\n`,
  );
  console.log("| server | instructions a request | against the floor | against the floor with the gateway's headers |");
  console.log('|---|---:|---:|---:|');
  for (const [name, ir] of rows) console.log(`| ${name} | ${(ir / 1000).toFixed(1)} k | ${(ir / floor).toFixed(2)}x | ${(ir / sameAnswer).toFixed(2)}x |`);
  // Every window, so a reader sees how far the median is from the bursts it leaves out.
  console.log('\nEach window (k instructions a request, least first):');
  for (const { name, windows } of counts) console.log(`${name}: ${windows.map((w) => (w / 1000).toFixed(1)).join(' ')}`);
}

main().catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});
