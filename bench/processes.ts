/** Child processes for the benchmarks: each server gets its own event loop, as in a deployment. */
import { type ChildProcess, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { freePort, ROOT, startProcess } from '../tools/processes';

/**
 * `BENCH_PIN=<load cpu>:<server cpu>` (e.g. `0:1`): the benchmark process, which generates the
 * load, runs on one CPU and every server it starts on another (`taskset`), so a server never
 * shares its core with the load it is measured under, nor with another server (one is driven at a
 * time). Unset, the kernel places them.
 */
const PIN = /^(\d+):(\d+)$/.exec(process.env.BENCH_PIN ?? '');
if (process.env.BENCH_PIN && !PIN) throw new Error(`BENCH_PIN=${process.env.BENCH_PIN}: expected <load cpu>:<server cpu>, e.g. 0:1`);
if (PIN) {
  const pinned = spawnSync('taskset', ['-a', '-p', '-c', PIN[1]!, String(process.pid)], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (pinned.status !== 0) throw new Error('BENCH_PIN: taskset could not pin the benchmark process');
}

/** `BENCH_PIN`'s placement, for the table's heading. */
export const pinning = (): string => (PIN ? `load on CPU ${PIN[1]}, each server on CPU ${PIN[2]}` : 'not pinned');

export interface Server {
  url: string;
  child: ChildProcess;
  /** The stdout line that announced the URL. */
  line: string;
  /** From spawn to that line. */
  startedMs: number;
}

/**
 * Runs `node` with `args` (in `cwd`, the repository by default) and `env`; resolves with the URL
 * `urlOf` reads from the first stdout line that announces it, then keeps draining stdout so the
 * child never blocks.
 */
export async function startServer(
  name: string,
  args: string[],
  env: Record<string, string>,
  urlOf: (line: string) => string | undefined,
  cwd: string = ROOT,
): Promise<Server> {
  const begun = performance.now();
  // taskset execs node, so the child's pid is the server's.
  const [command, argv] = PIN ? ['taskset', ['-c', PIN[2]!, process.execPath, ...args]] : [process.execPath, args];
  const started = await startProcess({ command, args: argv, cwd, env, ready: urlOf, stderr: 'inherit', keepLines: false }).catch((error: Error) => {
    throw new Error(`${name}: ${error.message}`);
  });
  return { url: started.ready!, child: started.child, line: started.stdout.at(-1)!, startedMs: performance.now() - begun };
}

/** The gateway's URL from its `gateway listening` line. */
export const gatewayUrl = (line: string): string | undefined =>
  line.startsWith('{') && line.includes('"gateway listening"') ? `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}` : undefined;

/** What a benchmarked gateway runs with: an ephemeral loopback port, no effective rate limit. */
export const BENCH_GATEWAY_ENV = { PORT: '0', RATE_LIMIT_PER_MINUTE: '1000000000', TOKEN_SIGNING_SECRET: 'bench' };

/**
 * Starts the gateway with `env` on an ephemeral loopback port (by default its sources through tsx;
 * `args` for another command line, e.g. the built bundle); resolves once it listens.
 */
export function startGateway(name: string, env: Record<string, string>, args = ['--import', 'tsx', 'src/node.ts'], cwd: string = ROOT): Promise<Server> {
  return startServer(name, args, { ...BENCH_GATEWAY_ENV, ...env }, gatewayUrl, cwd);
}

/** `productionArgs` of each checkout, asked once a run: each ask runs the build's check as a Node process. */
const built = new Map<string, string[]>();

/**
 * How production starts the gateway: the arguments of `npm start` after `node`, once
 * `scripts/build.mjs` has built `dist/` (a checkout from before the production build runs its
 * sources through tsx).
 */
export function productionArgs(dir: string = ROOT): string[] {
  let args = built.get(dir);
  if (!args) built.set(dir, (args = startArgs(dir)));
  return args;
}

/** The Node flags of a checkout's `npm start`, without its script: what every benchmarked server runs under. */
export const productionNodeFlags = (dir: string = ROOT): string[] => productionArgs(dir).slice(0, -1);

function startArgs(dir: string): string[] {
  if (!existsSync(join(dir, 'scripts/build.mjs'))) return ['--import', 'tsx', 'src/node.ts'];
  const build = spawnSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  if (build.status !== 0) throw new Error(`the build in ${dir} failed`);
  const start = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  // `exec node ...`: the shell gives its process to node, so signals reach the gateway itself.
  const [command, ...args] = start.replace(/^exec\s+/, '').split(/\s+/);
  if (command !== 'node') throw new Error(`npm start runs ${command}, not node`);
  return args;
}

/** One gateway of a `startGatewayHost`: a built checkout and its environment (over the benchmark's). */
export interface HostedGateway {
  dir: string;
  env: Record<string, string>;
}

/**
 * Starts `gateways` in one Node process (`bench/gateway-host.mjs`), each on a port chosen here,
 * under the production command line's Node flags; resolves once every one listens, with a Server
 * per gateway in the order given (they share the child).
 */
export async function startGatewayHost(name: string, gateways: HostedGateway[]): Promise<Server[]> {
  const flags = productionNodeFlags();
  // Each checkout built, as `npm start` would have it.
  for (const g of gateways) productionArgs(g.dir);
  const ports: number[] = [];
  for (const _ of gateways) ports.push(await freePort());
  const hosted = gateways.map((g, i) => ({ dir: g.dir, env: { ...BENCH_GATEWAY_ENV, ...g.env, PORT: String(ports[i]) } }));
  const announced = new Map<number, string>();
  const last = await startServer(name, [...flags, join(ROOT, 'bench/gateway-host.mjs')], { BENCH_GATEWAYS: JSON.stringify(hosted) }, (line) => {
    const url = gatewayUrl(line);
    if (url === undefined) return undefined;
    announced.set((JSON.parse(line) as { port: number }).port, line);
    return announced.size === gateways.length ? url : undefined;
  });
  return ports.map((port) => {
    const line = announced.get(port);
    if (line === undefined) throw new Error(`${name}: no gateway announced port ${port}`);
    return { ...last, url: `http://127.0.0.1:${port}`, line };
  });
}

/** `args` of a Node command line (flags, then the script) with `flags` added before the script. */
export function withNodeFlags(args: string[], ...flags: string[]): string[] {
  return [...args.slice(0, -1), ...flags, ...args.slice(-1)];
}

/** A process's resident set, in MB (Linux `/proc`). */
export function rssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

/**
 * The bundled gateway as a backend whose answers a shared cache may keep: a pass-through in this
 * process that says `public, max-age=3600` where the gateway says `private, no-cache` (which a
 * fronting gateway rightly does not keep). Only the warm-up's misses go through it.
 */
export async function keepableBackend(target: string): Promise<{ url: string; server: HttpServer }> {
  const server = createServer(async (req, res) => {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string' && name !== 'host') headers[name] = value;
    const answer = await fetch(target + req.url, { method: req.method, headers });
    const out: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (name !== 'content-length' && name !== 'transfer-encoding' && name !== 'connection' && name !== 'keep-alive') out[name] = value;
    });
    out['cache-control'] = 'public, max-age=3600';
    res.writeHead(answer.status, out).end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}
