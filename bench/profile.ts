/**
 * A CPU profile of the Node gateway under load, for finding what a request costs:
 *
 *   npx tsx scripts/compile-data.ts --if-stale && npx tsx bench/profile.ts page [seconds]
 *
 * Cases: page, sorted, detail, v1, search. Builds and starts the gateway as `npm start` runs it,
 * with `--cpu-prof`, on an ephemeral loopback port, drives it with autocannon (10 connections, 1 s warm-up, then
 * `seconds`, 5 by default), stops it, and prints the functions with the most self time, then the
 * profile's path (open it in Chrome DevTools for the whole picture). `BENCH_GATEWAY_DIR` profiles
 * another checkout's gateway. Sampling is by wall clock:
 * time in system calls (the socket write) includes waiting for a CPU on a busy machine, so compare
 * JavaScript functions with each other. Not part of `npm test`.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { productionArgs, startGateway, withNodeFlags } from './processes';

const which = process.argv[2] ?? 'page';
const seconds = Number(process.argv[3] ?? 5);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Another checkout's gateway, profiled with this harness (as in `bench:http`). */
const GATEWAY_DIR = process.env.BENCH_GATEWAY_DIR ?? ROOT;
const pages = Array.from({ length: 500 }, (_, k) => k + 1);
const PATHS: Record<string, string[]> = {
  page: pages.map((p) => `/v2/species?page=${p}`),
  sorted: pages.map((p) => `/v2/species?order[common_name]=asc&page=${p}`),
  detail: ['ABBA', 'ABAM', 'PIAB', 'QUAL', 'ACRU', 'ABLA', 'ACSA3', 'PIPO'].map((s) => `/v2/species/${s}`),
  v1: pages.map((p) => `/v1/species?page=${p}`),
  search: ['abies', 'rosa', 'quercus', 'pinus', 'carex', 'salix', 'acer', 'juncus'].map((g) => `/v2/species?q=${g}`),
};

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

const frameName = ({ functionName, url, lineNumber }: ProfileNode['callFrame']) =>
  `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(`file://${GATEWAY_DIR}`, '')}:${lineNumber + 1}`;

/**
 * Inclusive time by function (each sample counted once per function on its stack), in µs per
 * request: what a function and everything it calls cost a request.
 */
function inclusive(file: string, requests: number, top = 40): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const time = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) seen.add(frameName(byId.get(at)!.callFrame));
    for (const name of seen) time.set(name, (time.get(name) ?? 0) + profile.timeDeltas[i]!);
  });
  return [...time]
    .filter(([name]) => !name.startsWith('(root)') && !name.startsWith('(idle)'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, us]) => `${(us / requests).toFixed(1).padStart(6)} µs  ${name}`)
    .join('\n');
}

/** Self time by function, largest first. */
function summary(file: string, top = 30): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const { functionName, url } = byId.get(id)!.callFrame;
    const name = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(`file://${GATEWAY_DIR}`, '')}`;
    self.set(name, (self.get(name) ?? 0) + profile.timeDeltas[i]!);
    total += profile.timeDeltas[i]!;
  });
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, us]) => `${((100 * us) / total).toFixed(1).padStart(5)}%  ${name}`)
    .join('\n');
}

async function main(): Promise<void> {
  const list = PATHS[which];
  if (!list) throw new Error(`unknown case ${which}; one of ${Object.keys(PATHS).join(', ')}`);
  const dir = mkdtempSync(join(tmpdir(), 'gateway-profile-'));
  // What production runs (the built bundle, `npm start`'s flags), profiled.
  const { child, url } = await startGateway('gateway', {}, withNodeFlags(productionArgs(GATEWAY_DIR), '--cpu-prof', '--cpu-prof-dir', dir), GATEWAY_DIR);
  let i = 0;
  const drive = (duration: number) =>
    autocannon({
      url,
      connections: 10,
      duration,
      headers: { authorization: 'ApiKey demo-project-key' },
      requests: [{ setupRequest: (req) => ({ ...req, path: list[i++ % list.length]! }) }],
    });
  const warmup = await drive(1);
  const result = await drive(seconds);
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  const file = join(dir, readdirSync(dir).sort()[0]!);
  const requests = result.requests.total + warmup.requests.total;
  console.log(
    `${which}: ${result.requests.total} requests in ${seconds} s (non-2xx: ${result.non2xx})\n\n${summary(file)}\n\nInclusive, µs per request:\n${inclusive(file, requests)}\n\nprofile: ${file}`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
