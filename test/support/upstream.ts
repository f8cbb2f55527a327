/** Loopback upstreams for upstream-mode tests: the bundled gateway itself, or a fake that records and misbehaves. */
import { serve } from '@hono/node-server';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import { parseConfig, type UpstreamTuning } from '../../src/config';
import { PAGE_SIZE } from '../../src/services/record-source';
import { ManualClock } from '../../src/services/clock';
import type { LogLine } from '../../src/services/log';
import { noMetrics, type BackendName, type BackendOutcome, type BreakerPosition, type CacheResult, type Metrics } from '../../src/services/metrics';
import { MemoryResponseCache, UpstreamSource } from '../../src/services/upstream/index';
import type { RetryBudget } from '../../src/services/upstream/retry-budget';
import { backendFetch } from './gateway';
import { DEMO, NOW, testApp, type TestApp } from './harness';

export interface Loopback {
  url: string;
  close(): Promise<void>;
}

function closer(server: Server): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

/** The bundled gateway (a canonical v2 backend), served over real HTTP on 127.0.0.1. */
export async function bundledUpstream(options: { cacheableForSeconds?: number } = {}): Promise<Loopback & { gateway: TestApp }> {
  // A limit no test reaches, so the upstream's rate limiter (where present) cannot interfere.
  const gateway = testApp({ env: { RATE_LIMIT_PER_MINUTE: '1000000000' } });
  // The gateway marks its answers `private, no-cache`, which a fronting gateway does not keep; a
  // backend that lets them be kept says so, as one with public data would.
  const seconds = options.cacheableForSeconds;
  const fetch =
    seconds === undefined
      ? gateway.app.fetch
      : async (req: Request) => {
          const res = await gateway.app.fetch(req);
          if (res.status !== 200) return res;
          const headers = new Headers(res.headers);
          headers.set('Cache-Control', `public, max-age=${seconds}`);
          return new Response(res.body, { status: res.status, headers });
        };
  return new Promise((resolve) => {
    const server = serve({ fetch, hostname: '127.0.0.1', port: 0 }, (info) =>
      resolve({ url: `http://127.0.0.1:${info.port}`, close: closer(server as Server), gateway }),
    );
  });
}

export interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, n: number) => void | Promise<void>;

export interface FakeUpstream extends Loopback {
  /** Every request the upstream received, in order. */
  seen: Seen[];
  /** What the upstream does; tests swap it to start or end an outage. */
  handler: Handler;
  /** Requests not yet answered (for the slow cases). */
  open: number;
}

/** A fake upstream on 127.0.0.1 that records every request and answers with `handler`. */
export async function fakeUpstream(handler: Handler): Promise<FakeUpstream> {
  const fake = { seen: [] as Seen[], handler, open: 0 } as FakeUpstream;
  const server = createServer((req, res) => {
    fake.seen.push({ method: req.method!, url: req.url!, headers: req.headers });
    fake.open++;
    res.on('close', () => fake.open--);
    void Promise.resolve(fake.handler(req, res, fake.seen.length)).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = closer(server);
  return fake;
}

/** Makes fake upstreams that are closed after each test of the calling file. */
export function fakesClosedAfterEach(): (handler: Handler) => Promise<FakeUpstream> {
  const opened: FakeUpstream[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((f) => f.close()));
  });
  return async (handler) => {
    const f = await fakeUpstream(handler);
    opened.push(f);
    return f;
  };
}

/**
 * A backend that records the headers of every request and answers it from `target` (the bundled
 * gateway), for the workerd tests, which cannot see this process's memory: `GET /__seen` answers
 * what it recorded, as JSON.
 */
export async function recordingProxy(target: string): Promise<Loopback> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    if (req.url === '/__seen') return sendJson(res, seen);
    seen.push({ method: req.method!, url: req.url!, headers: req.headers });
    fetch(target + req.url!, { headers: { authorization: req.headers.authorization ?? '' } })
      .then(async (answer) => sendJson(res, await answer.text(), answer.status))
      .catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: closer(server) };
}

/** A port on 127.0.0.1 that nothing listens on (connection refused). */
export async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

export function sendJson(res: ServerResponse, body: unknown, status = 200, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** A canonical collection page of `total` made-up species, as an upstream would send it. */
export function fakePage(page = 1, total = 45): Record<string, unknown> {
  const first = (page - 1) * PAGE_SIZE;
  const count = Math.max(0, Math.min(PAGE_SIZE, total - first));
  const data = Array.from({ length: count }, (_, i) => ({
    id: `SP${first + i + 1}`,
    slug: `sp-${first + i + 1}`,
    scientific_name: `Species ${first + i + 1}`,
  }));
  return {
    data,
    links: { self: `/v2/species?page=${page}` },
    meta: { total, per_page: PAGE_SIZE, current_page: page, last_page: Math.ceil(total / PAGE_SIZE) },
  };
}

/** The page a fake upstream request asks for. */
export const pageOf = (req: IncomingMessage): number => Number(new URL(req.url!, 'http://x').searchParams.get('page') ?? 1);

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * No cache and an out-of-reach breaker, unless a test asks otherwise. The timeout is a guard (a
 * first request took 1.6 s at a load average of 8): a test about the deadline sets its own.
 */
export const TEST_TUNING: UpstreamTuning = {
  timeoutMs: 10_000,
  retries: 1,
  retryBudgetPercent: 10,
  breakerThreshold: 1000,
  breakerCooldownMs: 1000,
  cacheTtlMs: 0,
  staleMs: 0,
  staleAfterMs: 500,
  cacheMaxEntries: 100,
  cacheMaxBytes: 1024 * 1024,
};

/** What the upstream source told the metrics service: each backend attempt, each cache lookup, the breakers it watches. */
export interface RecordedMetrics extends Metrics {
  calls: Array<{ backend: BackendName; outcome: BackendOutcome; durationMs: number }>;
  lookups: CacheResult[];
  breakers: Map<BackendName, () => BreakerPosition>;
}

export function recordingMetrics(): RecordedMetrics {
  const recorded: RecordedMetrics = {
    ...noMetrics,
    calls: [],
    lookups: [],
    breakers: new Map(),
    backendCall: (backend, outcome, durationMs) => void recorded.calls.push({ backend, outcome, durationMs }),
    cacheLookup: (result) => void recorded.lookups.push(result),
    watchBreaker: (backend, state) => void recorded.breakers.set(backend, state),
  };
  return recorded;
}

export interface UpstreamGateway extends TestApp {
  source: UpstreamSource;
  cache: MemoryResponseCache;
  /** Log lines of the upstream source (retries, breaker, stale, refusals). */
  upstreamLogs: LogLine[];
  /** The metrics the upstream source recorded. */
  upstreamMetrics: RecordedMetrics;
  /** The access line of the `n`th request the gateway answered (from 0). */
  accessLine(n: number): LogLine;
}

/** A gateway in upstream mode, in process, fronting `baseUrl`; its clock is the test's to move. */
export function upstreamGateway(
  baseUrl: string,
  options: {
    tuning?: Partial<UpstreamTuning>;
    authorization?: string;
    retryBudget?: RetryBudget;
    /** More of the gateway's environment (`TRUST_TRACEPARENT`, `TRUST_PROXY`). */
    env?: Record<string, string>;
  } = {},
): UpstreamGateway {
  const clock = new ManualClock(Date.parse(NOW));
  const tuning = { ...TEST_TUNING, ...options.tuning };
  const cache = new MemoryResponseCache({ maxEntries: tuning.cacheMaxEntries, maxBytes: tuning.cacheMaxBytes }, clock);
  const upstreamLogs: LogLine[] = [];
  const upstreamMetrics = recordingMetrics();
  const source = new UpstreamSource({
    baseUrl,
    authorization: 'authorization' in options ? options.authorization : DEMO.key,
    // The Node entry's client, as a gateway process calls its upstream.
    fetch: backendFetch,
    cache,
    clock,
    tuning,
    log: (line) => upstreamLogs.push(line),
    retryBudget: options.retryBudget,
    metrics: upstreamMetrics,
  });
  // Fake upstreams answer records cut down to the fields a test needs, which the gateway passes
  // on as they are: such responses are not checked against the description.
  const gateway = testApp({ env: { UPSTREAM_URL: baseUrl, ...options.env }, services: { source, clock }, describes: false });
  const accessLine = (n: number) => gateway.logs.filter((l) => 'status' in l && 'route' in l)[n]!;
  return { ...gateway, clock, source, cache, upstreamLogs, upstreamMetrics, accessLine };
}

/** The configuration a test's environment gives. */
export const configWith = (env: Record<string, string>) => parseConfig({ TOKEN_SIGNING_SECRET: 'x', ...env });

/** The header names the table of docs/upstream.md lists as sent to a backend from Node, lower case, sorted. */
export function documentedBackendHeaders(): string[] {
  const doc = readFileSync(new URL('../../docs/upstream.md', import.meta.url), 'utf8');
  const table = doc.slice(doc.indexOf('### Headers sent to a backend'));
  return [...table.matchAll(/^\| `([A-Za-z-]+)` \| (.*) \|$/gm)]
    .filter((m) => !m[2]!.startsWith('Workers only'))
    .map((m) => m[1]!.toLowerCase())
    .sort();
}
