/**
 * `npm run bench:instructions`: CPU per request as instructions, which a busy machine does not move
 * (requests a second here vary 2x between runs; instruction counts repeat within about 3 %).
 *
 * Each server runs under `valgrind --tool=callgrind node --single-threaded`: the floors
 * (`bench/instructions-floor.mjs`: bare `node:http`, then Hono on `@hono/node-server`, both answering
 * a real 13 KB gateway page already serialized) and the production build of the gateway as
 * `npm start` runs it, over its bundled data. Each server is first warmed with `WARM_UP` requests
 * (the gateway's spread over every route measured): V8 still optimizes functions of the gateway
 * past 10,000 requests, and a count taken earlier measures the compiler, not the request. Then for
 * each route: `ROUTE_WARM_UP` requests, then `WINDOWS` windows of `WINDOW` requests, each
 * counted on its own (`callgrind_control -z` before it, `-d` after: callgrind itself does the
 * counting and the dumping, so neither costs the server an instruction). The figure is the median
 * window's instructions divided by its requests. A window of 500 holds a few young-generation
 * collections, which are counted; about one window in four also holds a burst of V8's own work
 * (a major collection's marking, a recompilation after one) that adds half as much again, and
 * which a longer window, or a mean, takes in or not by chance. The median leaves those bursts
 * out, so the figure is what a request costs between them, and it repeats; their share (a
 * fifth or so at most) is not in it. Requests are sequential over one keep-alive connection, from
 * this process (outside valgrind); every answer's status is checked. Printed as instructions a
 * request and as a ratio to the Hono floor measured in the same run.
 *
 *   npm run bench:instructions                     # every route
 *   BENCH_ROUTES='v2 page,v1 page' npm run bench:instructions
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProcess, type Started } from '../tools/processes';
import { BENCH_GATEWAY_ENV, gatewayUrl, productionArgs } from './processes';
import { chosenRoutes, closeClient, FLOOR_ROUTE, type Route, send, sendAll, warmUp } from './route-kinds';

const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 12_000);
const ROUTE_WARM_UP = Number(process.env.BENCH_ROUTE_WARM_UP ?? 500);
const WINDOW = Number(process.env.BENCH_WINDOW ?? 500);
const WINDOWS = Number(process.env.BENCH_WINDOWS ?? 9);
const DIR = mkdtempSync(join(tmpdir(), 'bench-instructions-'));
/** No limit reached in a run: the token route asks hundreds of times a minute. */
const GATEWAY_ENV = { ...BENCH_GATEWAY_ENV, TOKEN_RATE_LIMIT_PER_MINUTE: '1000000000' };

/** A server under callgrind, collecting from its start (the warm-up is zeroed away). */
function underCallgrind(name: string, args: string[], env: Record<string, string>, urlOf: (line: string) => string | undefined): Promise<Started<string>> {
  const callgrind = ['--tool=callgrind', '--dump-instr=no', `--callgrind-out-file=${join(DIR, `${name}.%p`)}`];
  return startProcess({
    command: 'valgrind',
    args: [...callgrind, process.execPath, '--single-threaded', ...args],
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

const control = (flag: '-z' | '-d', pid: number) => execFileSync('callgrind_control', [flag, String(pid)], { stdio: 'ignore' });

/** Instructions a request of `route`: the median of `WINDOWS` windows of `WINDOW` requests. */
async function instructionsPerRequest(server: Started<string>, name: string, route: Route): Promise<number> {
  const pid = server.child.pid!;
  await sendAll(server.ready!, route, ROUTE_WARM_UP);
  const windows: number[] = [];
  for (let w = 0; w < WINDOWS; w++) {
    control('-z', pid);
    await sendAll(server.ready!, route, WINDOW);
    control('-d', pid);
    windows.push(lastDumpIr(`${name}.${pid}`) / WINDOW);
  }
  return windows.sort((a, b) => a - b)[Math.floor(WINDOWS / 2)]!;
}

const portUrl = (line: string) => (line.startsWith('{"port"') ? `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}` : undefined);

async function main(): Promise<void> {
  const load = loadavg()[0]!.toFixed(2);
  const gatewayArgs = productionArgs();
  const rows: Array<[string, number]> = [];
  // The page the floors answer (`FLOOR_ROUTE`), as the gateway renders it.
  const body = join(DIR, 'page.json');
  {
    const plain = await startProcess({ command: process.execPath, args: gatewayArgs, env: GATEWAY_ENV, ready: gatewayUrl, keepLines: false });
    writeFileSync(body, await send(plain.ready!, FLOOR_ROUTE, 0));
    await plain.stop();
  }
  for (const kind of ['node', 'hono'] as const) {
    const server = await underCallgrind(kind, ['bench/instructions-floor.mjs', kind, body], {}, portUrl);
    await warmUp(server.ready!, [FLOOR_ROUTE], WARM_UP);
    rows.push([
      kind === 'node' ? 'bare node:http, the page pre-serialized' : 'Hono on @hono/node-server, the same (the floor)',
      await instructionsPerRequest(server, kind, FLOOR_ROUTE),
    ]);
    await server.stop();
  }
  const gateway = await underCallgrind('gateway', gatewayArgs, GATEWAY_ENV, gatewayUrl);
  const measured = chosenRoutes();
  await warmUp(gateway.ready!, measured, WARM_UP);
  for (const route of measured) rows.push([`gateway: ${route.name}`, await instructionsPerRequest(gateway, 'gateway', route)]);
  await gateway.stop();
  closeClient();

  const floor = rows[1]![1];
  console.log(
    `\nInstructions a request (callgrind, the median of ${WINDOWS} windows of ${WINDOW} requests, after ${WARM_UP} + ${ROUTE_WARM_UP}); Node ${process.version}; load average ${load} at the start\n`,
  );
  console.log('| server | instructions a request | against the floor |');
  console.log('|---|---:|---:|');
  for (const [name, ir] of rows) console.log(`| ${name} | ${(ir / 1000).toFixed(1)} k | ${(ir / floor).toFixed(2)}x |`);
}

main().catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});
