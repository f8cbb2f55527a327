/**
 * `npm run bench:instructions`: CPU per request as instructions, which a busy machine does not move
 * (requests a second here vary 2x between runs; instruction counts repeat within about 3 %).
 *
 * Each server runs under `valgrind --tool=callgrind node --single-threaded`: the floors
 * (`bench/instructions-floor.mjs`: bare `node:http`, then Hono on `@hono/node-server`, both answering
 * a real 13 KB gateway page already serialized) and the production build of the gateway as
 * `npm start` runs it, over its bundled data. For each route: warm-up requests, then the counters
 * zeroed (`callgrind_control -z`), `SMALL` requests, a dump (`-d`); zeroed again, `LARGE` requests,
 * a dump. Instructions a request = (Ir of the large dump - Ir of the small) / (LARGE - SMALL), which
 * cancels what a dump itself costs. Requests are sequential over one keep-alive connection, from
 * this process (outside valgrind); every answer's status is checked. Printed as instructions a
 * request and as a ratio to the Hono floor measured in the same run.
 *
 *   npm run bench:instructions                     # every route
 *   BENCH_ROUTES='v2 page,v1 page' npm run bench:instructions
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProcess, type Started } from '../tools/processes';
import { BENCH_GATEWAY_ENV, gatewayUrl, productionArgs } from './processes';

const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 300);
const SMALL = Number(process.env.BENCH_SMALL ?? 100);
const LARGE = Number(process.env.BENCH_LARGE ?? 400);
const ONLY = process.env.BENCH_ROUTES?.split(',').map((s) => s.trim());
const KEY = 'demo-project-key';
const DIR = mkdtempSync(join(tmpdir(), 'bench-instructions-'));
/** No limit reached in a run: the token route asks hundreds of times a minute. */
const GATEWAY_ENV = { ...BENCH_GATEWAY_ENV, TOKEN_RATE_LIMIT_PER_MINUTE: '1000000000' };

interface Route {
  name: string;
  method?: 'GET' | 'POST';
  /** The paths asked in turn (a few values, so kept answers behave as in real traffic). */
  paths: string[];
  headers?: Record<string, string>;
  body?: string;
  status: number;
}

const pages = (base: string, n = 5) => Array.from({ length: n }, (_, i) => `${base}${base.includes('?') ? '&' : '?'}page=${i + 2}`);
const ROUTES: Route[] = [
  { name: 'v2 page', paths: pages('/v2/species'), status: 200 },
  {
    name: 'v2 search',
    paths: ['/v2/species?q=oak', '/v2/species?q=rosa', '/v2/species?q=ab', '/v2/species?q=willow', '/v2/species?q=%C3%A9rable'],
    status: 200,
  },
  { name: 'v2 sorted page', paths: pages('/v2/species?order[scientific_name]=desc'), status: 200 },
  { name: 'v2 detail', paths: ['/v2/species/ABBA', '/v2/species/COFL2', '/v2/species/ACRU', '/v2/species/QUAL', '/v2/species/PIST'], status: 200 },
  { name: 'v2 genus species', paths: ['/v2/genus/Abies/species', '/v2/genus/Quercus/species', '/v2/genus/Acer/species'], status: 200 },
  { name: 'v1 page', paths: pages('/v1/species'), headers: { 'x-api-key': KEY }, status: 200 },
  { name: 'v2 404', paths: ['/v2/species/NO-SUCH-1', '/v2/species/NO-SUCH-2', '/v2/species/NO-SUCH-3'], status: 404 },
  {
    name: 'token request',
    method: 'POST',
    paths: ['/oauth/token'],
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&client_id=demo-client&client_secret=demo-client-secret',
    status: 200,
  },
];

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** One request over the keep-alive connection; its body read whole, its status checked. */
function send(origin: string, route: Route, i: number): Promise<Buffer> {
  const url = new URL(route.paths[i % route.paths.length]!, origin);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: route.method ?? 'GET', agent, headers: route.headers ?? { authorization: `ApiKey ${KEY}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        res.statusCode === route.status ? resolve(Buffer.concat(chunks)) : reject(new Error(`${route.name} ${url.pathname}: ${res.statusCode}`)),
      );
    });
    req.on('error', reject);
    req.end(route.body);
  });
}

async function sendAll(origin: string, route: Route, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await send(origin, route, i);
}

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

/** Instructions a request of `route`, and the two dumps' totals. */
async function instructionsPerRequest(server: Started<string>, name: string, route: Route): Promise<number> {
  const pid = server.child.pid!;
  await sendAll(server.ready!, route, WARM_UP);
  const measure = async (n: number) => {
    control('-z', pid);
    await sendAll(server.ready!, route, n);
    control('-d', pid);
    return lastDumpIr(`${name}.${pid}`);
  };
  const small = await measure(SMALL);
  const large = await measure(LARGE);
  return (large - small) / (LARGE - SMALL);
}

const portUrl = (line: string) => (line.startsWith('{"port"') ? `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}` : undefined);

async function main(): Promise<void> {
  const load = loadavg()[0]!.toFixed(2);
  const gatewayArgs = productionArgs();
  const rows: Array<[string, number]> = [];
  // The page the floors answer: the gateway's own v2 page 2, 13 KB.
  const body = join(DIR, 'page.json');
  {
    const plain = await startProcess({ command: process.execPath, args: gatewayArgs, env: GATEWAY_ENV, ready: gatewayUrl, keepLines: false });
    writeFileSync(body, await send(plain.ready!, ROUTES[0]!, 0));
    await plain.stop();
  }
  const floorRoute: Route = { name: 'floor', paths: ['/v2/species?page=2'], status: 200 };
  for (const kind of ['node', 'hono'] as const) {
    const server = await underCallgrind(kind, ['bench/instructions-floor.mjs', kind, body], {}, portUrl);
    rows.push([
      kind === 'node' ? 'bare node:http, the page pre-serialized' : 'Hono on @hono/node-server, the same (the floor)',
      await instructionsPerRequest(server, kind, floorRoute),
    ]);
    await server.stop();
  }
  const gateway = await underCallgrind('gateway', gatewayArgs, GATEWAY_ENV, gatewayUrl);
  for (const route of ROUTES.filter((r) => !ONLY || ONLY.includes(r.name)))
    rows.push([`gateway: ${route.name}`, await instructionsPerRequest(gateway, 'gateway', route)]);
  await gateway.stop();
  agent.destroy();

  const floor = rows[1]![1];
  console.log(
    `\nInstructions a request (callgrind, ${LARGE} requests minus ${SMALL}, after ${WARM_UP}); Node ${process.version}; load average ${load} at the start\n`,
  );
  console.log('| server | instructions a request | against the floor |');
  console.log('|---|---:|---:|');
  for (const [name, ir] of rows) console.log(`| ${name} | ${(ir / 1000).toFixed(1)} k | ${(ir / floor).toFixed(2)}x |`);
}

main().catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});
