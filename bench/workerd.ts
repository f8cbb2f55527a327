/**
 * The gateway's worker in workerd, for the edge benchmarks: the bundle `wrangler deploy --dry-run`
 * builds, started through Miniflare with wrangler.toml's bindings and `wrangler dev`'s local state
 * (what `wrangler dev` runs, without its proxy worker), and the isolate's inspector.
 */
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { convertV4MiniflareOptions, Miniflare } from 'miniflare';
import { unstable_getMiniflareWorkerOptions, unstable_readConfig } from 'wrangler';
import WebSocket from 'ws';
import { freePort } from '../tools/processes';

const HERE = fileURLToPath(new URL('..', import.meta.url));
export const WRANGLER = join(HERE, 'node_modules/.bin/wrangler');
export const WRANGLER_ENV = { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false', WRANGLER_HIDE_BANNER: 'true' };

/**
 * The isolate's inspector (workerd's own, or wrangler's proxy of it), over one DevTools protocol
 * connection, opened on the first call (a fresh worker that is never asked runs without one).
 */
export class Inspector {
  private ws: WebSocket | undefined;
  private opened: Promise<unknown> | undefined;
  private readonly waiting = new Map<number, (answer: { result?: unknown; error?: { message: string } }) => void>();
  private next = 0;

  constructor(private readonly url: string) {}

  private connect(): { ws: WebSocket; opened: Promise<unknown> } {
    if (!this.ws) {
      // wrangler's proxy answers only DevTools' own origin.
      this.ws = new WebSocket(this.url, { origin: 'https://devtools.devprod.cloudflare.dev' });
      this.opened = once(this.ws, 'open');
      this.ws.on('message', (data) => {
        const msg = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { message: string } };
        if (msg.id !== undefined) this.waiting.get(msg.id)?.(msg);
      });
    }
    return { ws: this.ws, opened: this.opened! };
  }

  async call<T>(method: string, params: object = {}): Promise<T> {
    const { ws, opened } = this.connect();
    await opened;
    const id = ++this.next;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`inspector did not answer ${method}`)), 15_000);
      this.waiting.set(id, ({ result, error }) => {
        clearTimeout(timer);
        this.waiting.delete(id);
        if (error) reject(new Error(`inspector: ${method}: ${error.message}`));
        else resolve(result as T);
      });
      ws.send(JSON.stringify({ id, method, params }));
    });
  }

  /** `Runtime.getHeapUsage`: V8's heap and the array buffers' storage. */
  async heapUsage(): Promise<{ usedSize: number; backingStorageSize: number }> {
    return { backingStorageSize: 0, ...(await this.call<{ usedSize: number; backingStorageSize?: number }>('Runtime.getHeapUsage')) };
  }

  /**
   * Runs `work` under V8's sampling profiler (every 0.5 ms) and answers the milliseconds the
   * isolate's thread was not idle (samples not `(idle)`), beside what `work` answers: running or
   * compiling JavaScript, or inside a call into the runtime (locally, the first call of a binding
   * starts its service on that thread: the profile shows it as time inside `kv.get` or the first
   * assets fetch). The rest of the wall time the isolate waited for answers.
   */
  async busy<T>(work: () => Promise<T>): Promise<{ value: T; busyMs: number }> {
    await this.call('Profiler.enable');
    await this.call('Profiler.setSamplingInterval', { interval: 500 });
    await this.call('Profiler.start');
    const value = await work();
    const { profile } = await this.call<{ profile: CpuProfile }>('Profiler.stop');
    const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
    const busyUs = profile.samples.reduce((sum, node, i) => sum + (idle.has(node) ? 0 : (profile.timeDeltas[i + 1] ?? 0)), 0);
    return { value, busyMs: busyUs / 1000 };
  }

  close(): void {
    this.ws?.close();
  }
}

export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string } }>;
  samples: number[];
  timeDeltas: number[];
}

/**
 * The worker as the fresh starts run it, made once a run: the bundle `wrangler deploy --dry-run`
 * writes (and the upload size it prints), its modules, and wrangler.toml's name and Miniflare
 * options (bindings, assets).
 */
export interface BuiltWorker {
  dir: string;
  upload: string;
  modules: Array<{ type: 'ESModule' | 'Data' | 'Text'; path: string }>;
  name: string;
  options: ReturnType<typeof unstable_getMiniflareWorkerOptions>['workerOptions'];
}
const bundles = new Map<string, BuiltWorker>();
/** The worker of the checkout `dir`, built once a run. */
export function built(dir: string): BuiltWorker {
  let bundle = bundles.get(dir);
  if (!bundle) {
    const out = mkdtempSync(join(tmpdir(), 'bench-edge-'));
    const run = spawnSync(WRANGLER, ['deploy', '--dry-run', '--outdir', out], { cwd: dir, env: WRANGLER_ENV, encoding: 'utf8' });
    const text = run.stdout + run.stderr;
    if (run.status !== 0) throw new Error(`wrangler deploy --dry-run failed (exit ${run.status}): ${text.slice(-400)}`);
    const config = join(dir, 'wrangler.toml');
    bundle = {
      dir: out,
      upload: /Total Upload: ([^\n]+)/.exec(text)?.[1]?.trim() ?? 'unknown',
      modules: bundleModules(out),
      name: unstable_readConfig({ config }).name ?? 'gateway',
      options: unstable_getMiniflareWorkerOptions(config).workerOptions,
    };
    bundles.set(dir, bundle);
  }
  return bundle;
}

/** The bundle's modules: the entry first, `.bin` files as Data (the rule in wrangler.toml), the rest (the docs page's UI) as Text. */
function bundleModules(dir: string): BuiltWorker['modules'] {
  const others = readdirSync(dir).filter((f) => f !== 'worker.js' && f !== 'README.md' && !f.endsWith('.map'));
  return [
    { type: 'ESModule', path: join(dir, 'worker.js') },
    ...others.map((f) => ({ type: f.endsWith('.bin') ? ('Data' as const) : ('Text' as const), path: join(dir, f) })),
  ];
}

/** Removes the bundles built this run. */
export function removeBuilt(): void {
  for (const bundle of bundles.values()) rmSync(bundle.dir, { recursive: true, force: true });
  bundles.clear();
}

/** What `startWorkerd` runs: a bundle's folder, its modules, its name and its Miniflare options. */
export type WorkerSpec = Pick<BuiltWorker, 'dir' | 'modules' | 'name' | 'options'>;

/** A running workerd: its port, its isolate's inspector, and how long it took to be ready. */
export interface RunningWorker {
  mf: Miniflare;
  port: number;
  inspector: Inspector;
  ready: number;
}

/**
 * A new workerd process running `worker` (by default the gateway of the checkout `dir`, with
 * wrangler.toml's bindings and `wrangler dev`'s local state, where `npm run seed:worker` put the
 * demo credentials).
 */
export async function startWorkerd(dir: string, worker: WorkerSpec = built(dir)): Promise<RunningWorker> {
  const { modules, name, options } = worker;
  const [port, inspectorPort] = [await freePort(), await freePort()];
  const started = performance.now();
  // wrangler gives the worker's options in Miniflare 4's shape; Miniflare 5 converts them.
  const mf = new Miniflare({
    ...convertV4MiniflareOptions({
      ...options,
      name,
      modules,
      modulesRoot: worker.dir,
      host: '127.0.0.1',
      port,
      inspectorPort,
      // The worker's access lines are not the benchmark's output; its errors are.
      handleStructuredLogs: ({ level, message }: { level: string; message: string }) => {
        if (level === 'error') process.stderr.write(`${message}\n`);
      },
    }),
    resourcePersistencePath: join(dir, '.wrangler/state/v3'),
  });
  await mf.ready;
  const ready = performance.now() - started;
  return { mf, port, ready, inspector: new Inspector(`ws://127.0.0.1:${inspectorPort}/core:user:${name}`) };
}

/** `npm run seed:worker` in `dir`: the demo credentials in local KV. */
export function seedCredentials(dir: string): void {
  const seeded = spawnSync('npm', ['run', '-s', 'seed:worker'], { cwd: dir, env: WRANGLER_ENV, encoding: 'utf8' });
  if (seeded.status !== 0) throw new Error(`seed:worker failed: ${seeded.stderr}`);
}
