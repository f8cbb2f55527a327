/**
 * `npm run bench:startup [-- RUNS]`: Node start-up, from spawn to the "gateway listening" line, of
 * the built server (`node dist/node.js`, what production and `npm start` run) against running the sources
 * through tsx (`tsx src/node.ts`), alternating, RUNS each (default 5), with a bare `node` process
 * as the machine's floor, and `npm start` (its staleness check included) to the first 200 from
 * `/healthz`. Prints every run, the medians and their ratio. `BENCH_BEFORE_DIR=/path/to/checkout`
 * also times that checkout's `npm start` (built first), in turn with this one's, and prints the
 * CPU its processes had used by the first 200 as well (what a loaded machine blurs less than the
 * wall time). Not part of `npm test`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { startProcess } from '../tools/processes';
import { median } from './median';

const RUNS = Number(process.argv[2] ?? 5);
const ROOT = new URL('..', import.meta.url).pathname;
const BEFORE = process.env.BENCH_BEFORE_DIR;

const commands = {
  built: [process.execPath, ['dist/node.js']],
  tsx: [`${ROOT}node_modules/.bin/tsx`, ['src/node.ts']],
  // What an operator types: npm, the staleness check, then the built server; to the first 200.
  'npm start': ['npm', ['start', '--silent']],
  'npm start, before': ['npm', ['start', '--silent'], BEFORE],
  // The floor on this machine: a node process that prints the line and exits.
  node: [process.execPath, ['-e', "console.log('gateway listening')"]],
} as const;

/** CPU ms (user + system, with the children waited for) of every process of the group `pgid`. */
function groupCpu(pgid: number): number {
  const pids = execFileSync('pgrep', ['-g', String(pgid)], { encoding: 'utf8' })
    .trim()
    .split('\n');
  return pids.reduce((sum, pid) => {
    // Fields after the command's closing parenthesis: utime, stime, cutime, cstime are the 12th to 15th.
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return sum + [11, 12, 13, 14].reduce((t, i) => t + Number(f[i]), 0) * 10;
  }, 0);
}

async function startup([command, args, cwd = ROOT]: readonly [string, readonly string[], string?]): Promise<number> {
  const started = performance.now();
  const run = await startProcess({
    command,
    args,
    cwd,
    env: { PORT: '0', HOST: '127.0.0.1' },
    // The floor prints the bare words; the gateway its JSON line.
    ready: (line) => (line.includes('gateway listening') ? { at: performance.now(), line } : undefined),
    group: true,
  });
  const { at, line } = run.ready!;
  const ms = command === 'npm' ? await firstOk((JSON.parse(line) as { port: number }).port, started) : at - started;
  if (command === 'npm') cpu.get(cwd)?.push(groupCpu(run.child.pid!));
  // The whole group: the tsx command runs the server as its own child.
  await run.stop();
  return ms;
}

/** Milliseconds from `started` to the first 200 of `/healthz` on `port`. */
async function firstOk(port: number, started: number): Promise<number> {
  for (;;) {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
    await res?.arrayBuffer();
    if (res?.status === 200) return performance.now() - started;
  }
}

for (const dir of BEFORE ? [ROOT, BEFORE] : [ROOT]) {
  const build = spawnSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: dir, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const names = ['built', 'tsx', 'npm start', ...(BEFORE ? (['npm start, before'] as const) : []), 'node'] as const;
const times = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<(typeof names)[number], number[]>;
/** CPU ms by the first 200 of each `npm start`, by checkout. */
const cpu = new Map<string, number[]>([[ROOT, []], ...(BEFORE ? [[BEFORE, []] as [string, number[]]] : [])]);
// This process's own fetch, loaded before any timing.
await fetch('http://127.0.0.1:9/').catch(() => undefined);
for (let run = 0; run < RUNS; run++) {
  for (const name of names) times[name].push(await startup(commands[name]).catch(() => Number.NaN));
}
for (const [name, values] of Object.entries(times)) {
  console.log(`${name.padEnd(9)} ${values.map((v) => `${Math.round(v)} ms`).join(', ')}  (median ${Math.round(median(values))} ms)`);
}
for (const [dir, values] of cpu) console.log(`npm start CPU by the first 200, ${dir}: ${values.join(', ')} ms (median ${median(values)} ms)`);
if (BEFORE) {
  const wall = (key: 'npm start' | 'npm start, before') => median(times[key]);
  console.log(
    `npm start, this checkout / before: ${(wall('npm start') / wall('npm start, before')).toFixed(2)} (wall), ${(median(cpu.get(ROOT)!) / median(cpu.get(BEFORE)!)).toFixed(2)} (CPU)`,
  );
}
console.log(
  `built / tsx: ${(median(times.built) / median(times.tsx)).toFixed(2)}; built / bare node: ${(median(times.built) / median(times.node)).toFixed(2)}`,
);
