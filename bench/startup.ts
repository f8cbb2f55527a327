/**
 * `npm run bench:startup [-- RUNS]`: Node start-up, from spawn to the "gateway listening" line, of
 * the built server (`node dist/node.js`, what `npm start` runs) against running the sources
 * through tsx (`tsx src/node.ts`), alternating, RUNS each (default 5), with a bare `node` process
 * as the machine's floor, and `npm start` (its staleness check included) to the first 200 from
 * `/healthz`. Prints every run, the medians and their ratio. Not part of `npm test`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';

const RUNS = Number(process.argv[2] ?? 5);
const ROOT = new URL('..', import.meta.url).pathname;

const commands = {
  built: [process.execPath, ['dist/node.js']],
  tsx: [`${ROOT}node_modules/.bin/tsx`, ['src/node.ts']],
  // What an operator types: npm, the prestart staleness check, then the built server; to the first 200.
  'npm start': ['npm', ['start', '--silent']],
  // The floor on this machine: a node process that prints the line and exits.
  node: [process.execPath, ['-e', "console.log('gateway listening')"]],
} as const;

function startup([command, args]: readonly [string, readonly string[]]): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'ignore'],
      detached: true,
    });
    createInterface({ input: child.stdout }).on('line', async (line) => {
      if (!line.includes('gateway listening')) return;
      const ms = command === 'npm' ? await firstOk((JSON.parse(line) as { port: number }).port, started) : performance.now() - started;
      // The whole group: the tsx command runs the server as its own child.
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* already gone (the floor exits by itself) */
      }
      resolve(ms);
    });
    child.on('exit', (code) => setTimeout(() => reject(new Error(`${command} exited ${code} before listening`)), 100));
  });
}

/** Milliseconds from `started` to the first 200 of `/healthz` on `port`. */
async function firstOk(port: number, started: number): Promise<number> {
  for (;;) {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
    await res?.arrayBuffer();
    if (res?.status === 200) return performance.now() - started;
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const build = spawnSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const times: Record<keyof typeof commands, number[]> = { built: [], tsx: [], 'npm start': [], node: [] };
// This process's own fetch, loaded before any timing.
await fetch('http://127.0.0.1:9/').catch(() => undefined);
for (let run = 0; run < RUNS; run++) {
  for (const name of ['built', 'tsx', 'npm start', 'node'] as const) times[name].push(await startup(commands[name]).catch(() => Number.NaN));
}
for (const [name, values] of Object.entries(times)) {
  console.log(`${name.padEnd(9)} ${values.map((v) => `${Math.round(v)} ms`).join(', ')}  (median ${Math.round(median(values))} ms)`);
}
console.log(
  `built / tsx: ${(median(times.built) / median(times.tsx)).toFixed(2)}; built / bare node: ${(median(times.built) / median(times.node)).toFixed(2)}`,
);
