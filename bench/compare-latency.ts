/**
 * `npm run bench:compare`: does comparing v1 answers slow the caller's answer? The same v1 load,
 * at a fixed offered rate (below saturation, as in service), against a gateway comparing 0%,
 * 10% and 100% of v1 requests, with the facade and then the legacy backend answering. The gateway, the
 * legacy backend and the load generator are separate processes. Prints latency percentiles, the
 * gateway's CPU time per request, and their ratios to 0%. Not part of `npm test`.
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { LEGACY_AUTHORIZATION } from '../test/support/legacy-v1';
import { startGateway, startServer, type Server } from './processes';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const CONNECTIONS = 10;
const data = JSON.parse(readFileSync(new URL('../fixtures/taxa.json', import.meta.url), 'utf8')) as { species: Array<{ id: string }> };
const PATHS = [
  ...Array.from({ length: 250 }, (_, k) => `/v1/species?page=${k + 1}`),
  ...Array.from({ length: 250 }, (_, k) => `/v1/species/${encodeURIComponent(data.species[k * 131]!.id)}`),
];

/** CPU time (user + system) a process has used, in ms, from /proc (Linux); NaN elsewhere. */
function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // clock ticks of 10 ms
  } catch {
    return Number.NaN;
  }
}

interface Stats {
  cpuPerRequest: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  failures: number;
}

async function load(url: string, seconds: number, pid: number): Promise<Stats> {
  let i = 0;
  const cpuBefore = cpuMs(pid);
  const r = await autocannon({
    url,
    connections: CONNECTIONS,
    overallRate: RATE,
    duration: seconds,
    headers: { authorization: 'ApiKey demo-project-key' },
    requests: [{ setupRequest: (req) => ({ ...req, path: PATHS[i++ % PATHS.length]! }) }],
  });
  return {
    cpuPerRequest: (cpuMs(pid) - cpuBefore) / r.requests.total,
    rps: r.requests.average,
    p50: r.latency.p50,
    p90: r.latency.p90,
    p99: r.latency.p99,
    failures: r.non2xx + r.errors + r.timeouts,
  };
}

const servers: Server[] = [];
try {
  const legacy = await startServer('legacy', ['--import', 'tsx', 'bench/legacy-server.ts'], { PORT: '0' }, (line) =>
    line.includes('"legacy listening"') ? JSON.parse(line).url : undefined,
  );
  servers.push(legacy);
  const rows: string[] = [];
  for (const answer of ['facade', 'legacy']) {
    const byPercent: Stats[] = [];
    for (const percent of ['0', '10', '100']) {
      const gateway = await startGateway(`${answer} ${percent}%`, {
        LEGACY_V1_URL: legacy.url,
        LEGACY_V1_AUTHORIZATION: LEGACY_AUTHORIZATION,
        V1_ANSWER: answer,
        V1_COMPARE_PERCENT: percent,
      });
      try {
        await load(gateway.url, 3, gateway.child.pid!); // JIT warm-up (and the legacy stand-in's memo), not measured
        const s = await load(gateway.url, SECONDS, gateway.child.pid!);
        byPercent.push(s);
        process.stderr.write(`${answer} answering, ${percent}% compared: p50 ${s.p50} ms, p99 ${s.p99} ms\n`);
        rows.push(`| ${answer} | ${percent}% | ${s.rps.toFixed(0)} | ${s.p50} | ${s.p90} | ${s.p99} | ${s.cpuPerRequest.toFixed(2)} | ${s.failures} |`);
      } finally {
        gateway.child.kill('SIGTERM');
      }
    }
    const [off, ...on] = byPercent as [Stats, Stats, Stats];
    on.forEach((s, i) => {
      rows.push(
        `| ${answer} | ratio ${['10', '100'][i]}% / 0% | | ${(s.p50 / off.p50).toFixed(2)} | ${(s.p90 / off.p90).toFixed(2)} | ${(s.p99 / off.p99).toFixed(2)} | ${(s.cpuPerRequest / off.cpuPerRequest).toFixed(2)} | |`,
      );
    });
  }
  console.log(`\n${RATE} req/s offered over ${CONNECTIONS} connections, ${SECONDS} s per run, ${PATHS.length} distinct v1 paths (pages and details)\n`);
  console.log(
    '| v1 answered by | compared | req/s | p50 ms | p90 ms | p99 ms | gateway CPU ms/request | non-2xx/errors |\n|---|---|---:|---:|---:|---:|---:|---:|',
  );
  for (const row of rows) console.log(row);
} finally {
  for (const s of servers) s.child.kill('SIGTERM');
}
