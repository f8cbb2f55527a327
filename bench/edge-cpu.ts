/**
 * `npm run bench:edge-cpu`: CPU a request in workerd, the Workers entry's counterpart of
 * `bench:instructions`. The gateway runs as `bench:edge` runs it (the dry-run bundle through
 * Miniflare, wrangler.toml's bindings, the demo credentials seeded into local KV), its limits
 * raised so no request is refused; the floor is a bare Hono worker (`bench/edge-floor.mjs`)
 * answering the gateway's own v2 page 2 already serialized, with the same compatibility date.
 *
 * The figure is the isolate's CPU time, as the platform bills it: V8's sampling profiler through
 * the inspector (every 0.5 ms) over `REQUESTS` sequential keep-alive requests, the time of the
 * samples that were not `(idle)` (JavaScript, or a call into the runtime: headers, streams,
 * bindings), divided by the requests. Before that, `WARM_UP` requests over every route measured,
 * and `ROUTE_WARM_UP` of the route itself. Each figure is the median of `REPEATS` counts. A
 * sampled time moves with the machine's load, unlike an instruction count: the ratio to the floor
 * measured in the same run is the figure to read.
 *
 *   npm run bench:edge-cpu
 *   BENCH_ROUTES='v2 page,v1 page' npm run bench:edge-cpu
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { chosenRoutes, closeClient, FLOOR_ROUTE, type Route, send, sendAll, warmUp } from './route-kinds';
import { built, type RunningWorker, removeBuilt, seedCredentials, startWorkerd, type WorkerSpec } from './workerd';

const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 4000);
const ROUTE_WARM_UP = Number(process.env.BENCH_ROUTE_WARM_UP ?? 300);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 3000);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
const HERE = fileURLToPath(new URL('..', import.meta.url));
/** No limit reached in a run: the token route asks hundreds of times a minute. */
const UNLIMITED = { RATE_LIMIT_PER_MINUTE: '1000000000', TOKEN_RATE_LIMIT_PER_MINUTE: '1000000000' };

/** Microseconds of isolate CPU a request of `route`: the median of `REPEATS` profiled runs. */
async function cpuPerRequest(worker: RunningWorker, route: Route): Promise<number> {
  const origin = `http://127.0.0.1:${worker.port}`;
  await sendAll(origin, route, ROUTE_WARM_UP);
  const counts: number[] = [];
  for (let r = 0; r < REPEATS; r++) {
    const { busyMs } = await worker.inspector.busy(() => sendAll(origin, route, REQUESTS));
    counts.push((busyMs * 1000) / REQUESTS);
  }
  return counts.sort((a, b) => a - b)[Math.floor(counts.length / 2)]!;
}

/** The floor worker: `bench/edge-floor.mjs` bundled with Hono, beside the page it answers. */
async function floorWorker(page: Buffer, like: WorkerSpec): Promise<WorkerSpec> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-edge-floor-'));
  writeFileSync(join(dir, 'page.json'), page);
  await build({
    entryPoints: [join(HERE, 'bench/edge-floor.mjs')],
    bundle: true,
    format: 'esm',
    outfile: join(dir, 'worker.js'),
    external: ['./page.json'],
    logLevel: 'error',
  });
  const { compatibilityDate, compatibilityFlags } = like.options as { compatibilityDate?: string; compatibilityFlags?: string[] };
  return {
    dir,
    name: 'floor',
    modules: [
      { type: 'ESModule', path: join(dir, 'worker.js') },
      { type: 'Text', path: join(dir, 'page.json') },
    ],
    options: { compatibilityDate, compatibilityFlags } as WorkerSpec['options'],
  };
}

async function main(): Promise<void> {
  const load = loadavg()[0]!.toFixed(2);
  seedCredentials(HERE);
  const gatewayBuilt = built(HERE);
  const gatewayOptions = gatewayBuilt.options as { bindings?: Record<string, unknown> };
  const gateway = await startWorkerd(HERE, {
    ...gatewayBuilt,
    options: { ...gatewayBuilt.options, bindings: { ...gatewayOptions.bindings, ...UNLIMITED } } as typeof gatewayBuilt.options,
  });
  const rows: Array<[string, number]> = [];
  let floorDir: string | undefined;
  try {
    const origin = `http://127.0.0.1:${gateway.port}`;
    const page = await send(origin, FLOOR_ROUTE, 0);
    const measured = chosenRoutes();
    await warmUp(origin, measured, WARM_UP);
    const gatewayRows: Array<[string, number]> = [];
    for (const route of measured) gatewayRows.push([`gateway: ${route.name}`, await cpuPerRequest(gateway, route)]);
    gateway.inspector.close();
    await gateway.mf.dispose();

    const floorSpec = await floorWorker(page, gatewayBuilt);
    floorDir = floorSpec.dir;
    const floor = await startWorkerd(HERE, floorSpec);
    await warmUp(`http://127.0.0.1:${floor.port}`, [FLOOR_ROUTE], WARM_UP);
    rows.push(['bare Hono worker, the page pre-serialized (the floor)', await cpuPerRequest(floor, FLOOR_ROUTE)], ...gatewayRows);
    floor.inspector.close();
    await floor.mf.dispose();
  } finally {
    closeClient();
    removeBuilt();
    if (floorDir) rmSync(floorDir, { recursive: true, force: true });
  }
  const floorUs = rows[0]![1];
  console.log(
    `\nIsolate CPU a request in workerd (sampling profiler, median of ${REPEATS} x ${REQUESTS} requests, after ${WARM_UP} + ${ROUTE_WARM_UP}); load average ${load} at the start\n`,
  );
  console.log('| worker | CPU a request | against the floor |');
  console.log('|---|---:|---:|');
  for (const [name, us] of rows) console.log(`| ${name} | ${us.toFixed(1)} µs | ${(us / floorUs).toFixed(2)}x |`);
}

main().catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});
