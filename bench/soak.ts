/**
 * `npm run bench:soak` (or `npm run bench:soak -- 600`): the Node gateway under a long run of mixed traffic.
 * Starts the gateway as `npm start` runs it (the built bundle with the start script's Node flags)
 * as a child process on an ephemeral loopback port, drives it with autocannon
 * for `SOAK_SECONDS` (default 60; an argument wins) with a mix of pages, searches, details, v1
 * legacy credential places, token requests and bad credentials, while a side loop opens token
 * requests and drops them mid-body. Prints throughput, latency, answers by status, what the
 * gateway logged (error lines, aborted lines) and its RSS at the start, every tenth of the run
 * and at the end (from /proc, so Linux only), and beside each the memory it keeps alive: the heap
 * and external memory after a full collection, read through its inspector (on a loopback port),
 * which tells a leak (live memory that keeps growing) from V8 not giving memory back
 * (`SOAK_COLLECT=0`: only at the start and the end). Limits are set high in the child so they do
 * not dominate the mix. Not part of `npm test`.
 */
import { connect } from 'node:net';
import { cpus } from 'node:os';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { type LiveMemory, liveMemory } from './inspector';
import { freePort } from '../tools/processes';
import { productionArgs, rssMb, type Server, startGateway, withNodeFlags } from './processes';

const SECONDS = Number(process.argv[2] ?? process.env.SOAK_SECONDS ?? 60);
const CONNECTIONS = Number(process.env.SOAK_CONNECTIONS ?? 8);
const ABORTS_PER_SECOND = Number(process.env.SOAK_ABORTS_PER_SECOND ?? 10);
/** `SOAK_COLLECT=0`: read what is kept alive only at the start and the end, so no forced collection shapes the RSS between. */
const COLLECT_EVERY_SAMPLE = process.env.SOAK_COLLECT !== '0';
const KEY = 'ApiKey demo-project-key';
const BASIC = `Basic ${Buffer.from('demo-client:demo-client-secret').toString('base64')}`;
const WRONG_BASIC = `Basic ${Buffer.from('demo-client:not-the-secret').toString('base64')}`;
const FORM = 'application/x-www-form-urlencoded';

if (!Number.isFinite(SECONDS) || SECONDS < 1)
  throw new Error(`SOAK_SECONDS must be a number of seconds >= 1 (got ${process.argv[2] ?? process.env.SOAK_SECONDS})`);

export interface Planned {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  kind: string;
}

/** What the gateway wrote to stdout, counted as it arrives. */
const logged = { lines: 0, errorLines: 0, abortedLines: 0, status5xx: 0 };

/** The gateway with every limit out of the way; each line it writes after listening is counted. */
async function startSoakGateway(inspectorPort: number): Promise<Server> {
  const args = withNodeFlags(productionArgs(), `--inspect=127.0.0.1:${inspectorPort}`);
  const gateway = await startGateway('gateway', { TOKEN_RATE_LIMIT_PER_MINUTE: '1000000000', AUTH_FAILURES_PER_MINUTE: '1000000000' }, args);
  createInterface({ input: gateway.child.stdout! }).on('line', (line) => {
    // Substring tests, not JSON.parse: the bench shares the machine's two cores with the gateway.
    logged.lines++;
    if (line.includes('"level":"error"')) logged.errorLines++;
    if (line.includes('"aborted":true')) logged.abortedLines++;
    if (/"status":5\d\d/.test(line)) logged.status5xx++;
  });
  return gateway;
}

/** The mix, in proportions: 5 pages, 4 searches, 4 details, 3 v1 legacy places, 2 token requests, 2 bad credentials (bench/memory.ts drives it too). */
export function plan(): Planned[] {
  const data = JSON.parse(readFileSync(new URL('../fixtures/taxa.json', import.meta.url), 'utf8')) as {
    species: Array<{ id: string }>;
    genus: Array<{ name: string }>;
  };
  const pick = <T>(list: T[], k: number) => list[(k * 7919) % list.length]!;
  const mix: Planned[] = [];
  for (let k = 0; k < 200; k++) {
    const id = encodeURIComponent(pick(data.species, k).id);
    const genus = encodeURIComponent(pick(data.genus, k).name.toLowerCase());
    const page = 1 + ((k * 37) % 1500);
    mix.push(
      { kind: 'page', method: 'GET', path: `/v2/species?page=${page}`, headers: { authorization: KEY } },
      { kind: 'page', method: 'GET', path: `/v2/genus?page=${1 + (k % 180)}`, headers: { authorization: KEY } },
      { kind: 'page', method: 'GET', path: `/v2/species?order[common_name]=asc&page=${page}`, headers: { authorization: KEY } },
      { kind: 'page', method: 'GET', path: `/v2/families?page=${1 + (k % 18)}`, headers: { authorization: 'Bearer demo-personal-token' } },
      { kind: 'page', method: 'GET', path: `/v2/plants?page=${1 + ((k * 37) % 1200)}`, headers: { authorization: KEY } },
      { kind: 'search', method: 'GET', path: `/v2/species?q=${genus}`, headers: { authorization: KEY } },
      { kind: 'search', method: 'GET', path: `/v2/species?q=${genus}&order[scientific_name]=desc`, headers: { authorization: KEY } },
      { kind: 'search', method: 'GET', path: `/v2/genus?q=${genus.slice(0, 4)}`, headers: { authorization: KEY } },
      { kind: 'search', method: 'GET', path: `/v1/species?q=${genus}`, headers: { authorization: KEY } },
      { kind: 'detail', method: 'GET', path: `/v2/species/${id}`, headers: { authorization: KEY } },
      { kind: 'detail', method: 'GET', path: `/v2/species/${id}`, headers: { authorization: KEY } },
      { kind: 'detail', method: 'GET', path: `/v1/species/${id}`, headers: { authorization: KEY } },
      { kind: 'detail', method: 'GET', path: `/v2/genus/${encodeURIComponent(pick(data.genus, k).name)}`, headers: { authorization: KEY } },
      { kind: 'v1 legacy place', method: 'GET', path: `/v1/species?key=demo-project-key&page=${page}`, headers: {} },
      { kind: 'v1 legacy place', method: 'GET', path: `/v1/species/${id}`, headers: { 'x-api-key': 'demo-project-key' } },
      { kind: 'v1 legacy place', method: 'GET', path: `/api/v1/species?token=demo-personal-token&page=${page}`, headers: {} },
      { kind: 'token', method: 'POST', path: '/oauth/token', headers: { authorization: BASIC, 'content-type': FORM }, body: 'grant_type=client_credentials' },
      {
        kind: 'token',
        method: 'POST',
        path: '/oauth/token',
        headers: { 'content-type': FORM },
        body: 'grant_type=client_credentials&client_id=demo-client&client_secret=demo-client-secret',
      },
      { kind: 'bad credential', method: 'GET', path: `/v2/species/${id}`, headers: { authorization: 'ApiKey not-a-real-key' } },
      {
        kind: 'bad credential',
        method: 'POST',
        path: '/oauth/token',
        headers: { authorization: WRONG_BASIC, 'content-type': FORM },
        body: 'grant_type=client_credentials',
      },
    );
  }
  return mix;
}

/** Token requests whose client leaves mid-body, `perSecond` of them, until stopped. */
function aborter(url: string, perSecond: number): { stop(): number } {
  const { port } = new URL(url);
  let sent = 0;
  const timer = setInterval(() => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(`POST /oauth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${FORM}\r\nContent-Length: 200\r\n\r\ngrant_type=client`);
      setTimeout(() => socket.destroy(), 20);
      sent++;
    });
    socket.on('error', () => {});
  }, 1000 / perSecond);
  return {
    stop: () => {
      clearInterval(timer);
      return sent;
    },
  };
}

async function main(): Promise<void> {
  const inspectorPort = await freePort();
  const { child, url } = await startSoakGateway(inspectorPort);
  try {
    const pid = child.pid!;
    const rss: Array<[number, number]> = [[0, rssMb(pid)]];
    const live: Array<[number, LiveMemory]> = [[0, await liveMemory(inspectorPort)]];
    const mix = plan();
    let i = 0;
    console.log(
      `soak: ${SECONDS} s, ${CONNECTIONS} connections, ${mix.length} distinct requests, ${ABORTS_PER_SECOND} dropped token requests/s; machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}, Node ${process.version}`,
    );
    const started = Date.now();
    // RSS as the process has it, then what it keeps alive once collected.
    const sampler = setInterval(
      () => {
        const at = Math.round((Date.now() - started) / 1000);
        rss.push([at, rssMb(pid)]);
        if (!COLLECT_EVERY_SAMPLE) return;
        liveMemory(inspectorPort).then(
          (m) => live.push([at, m]),
          (err: Error) => console.error(`live memory at ${at} s: ${err.message}`),
        );
      },
      (SECONDS * 1000) / 10,
    );
    const drops = aborter(url, ABORTS_PER_SECOND);
    const result = await autocannon({
      url,
      connections: CONNECTIONS,
      duration: SECONDS,
      requests: [
        {
          setupRequest: (req) => {
            const next = mix[i++ % mix.length]!;
            return { ...req, method: next.method, path: next.path, headers: next.headers, body: next.body };
          },
        },
      ],
    });
    clearInterval(sampler);
    const dropped = drops.stop();
    await new Promise((resolve) => setTimeout(resolve, 500)); // the last log batch
    rss.push([SECONDS, rssMb(pid)]);
    live.push([SECONDS, await liveMemory(inspectorPort)]);

    const byStatus = Object.entries(result.statusCodeStats ?? {})
      .map(([status, { count }]) => `${status}: ${count}`)
      .join(', ');
    console.log(
      `requests: ${result.requests.total} in ${result.duration.toFixed(0)} s, ${result.requests.average.toFixed(0)} req/s (min ${result.requests.min}, max ${result.requests.max})`,
    );
    console.log(`latency ms: p50 ${result.latency.p50}, p99 ${result.latency.p99}, max ${result.latency.max}`);
    console.log(
      `answers by status: ${byStatus} (401s are the bad credentials of the mix: ${((mix.filter((m) => m.kind === 'bad credential').length / mix.length) * 100).toFixed(0)}% of requests)`,
    );
    console.log(`client-side errors: ${result.errors}, timeouts: ${result.timeouts}; dropped token requests sent: ${dropped}`);
    console.log(`gateway log: ${logged.lines} lines, ${logged.errorLines} error lines, ${logged.status5xx} with a 5xx status, ${logged.abortedLines} aborted`);
    console.log(`RSS MB (s: MB): ${rss.map(([s, mb]) => `${s}: ${mb.toFixed(0)}`).join(', ')}`);
    console.log(`RSS start ${rss[0]![1].toFixed(0)} MB, end ${rss.at(-1)![1].toFixed(0)} MB`);
    console.log(
      `kept alive after a full collection, heap + external MB (s: MB): ${live.map(([s, m]) => `${s}: ${m.heapMb.toFixed(1)} + ${m.externalMb.toFixed(1)}`).join(', ')}`,
    );
  } finally {
    child.kill('SIGTERM');
  }
}

// Run as a program, not imported (bench/memory.ts reuses the mix).
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
