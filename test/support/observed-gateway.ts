/**
 * A gateway process with every part the metrics describe: Prometheus metrics on their own port,
 * an upstream (a second, bundled gateway process, seen through a proxy that lets a shared cache
 * keep its answers, as a canonical backend does) behind its cache and breaker, the legacy v1
 * backend answering v1 with every answer compared, and a small mixed load: v2 and v1 through each
 * credential place, refused credentials up to the failure limit, the token endpoint's limit,
 * unknown paths and a request Node's HTTP layer refuses.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { DEMO } from './harness';
import { startGatewayProcess, type GatewayProcess } from '../../tools/processes';
import { LEGACY_AUTHORIZATION, legacyV1, type LegacyV1 } from './legacy-v1';

export interface ObservedGateway {
  origin: string;
  /** `127.0.0.1:<port>` of the metrics listener. */
  metricsTarget: string;
  gateway: GatewayProcess;
  stop(): Promise<void>;
}

export async function startObservedGateway(): Promise<ObservedGateway> {
  const upstream = await startGatewayProcess({ RATE_LIMIT_PER_MINUTE: '1000000000', TOKEN_SIGNING_SECRET: 'upstream' });
  let legacy: LegacyV1 | undefined;
  let cacheable: Server | undefined;
  let failing: Server | undefined;
  try {
    cacheable = await proxy(upstream.origin, true);
    legacy = await legacyV1({ memo: true });
    failing = await proxy(new URL(legacy.url).origin, false);
    // The legacy backend answers from this process: its first answers (loading the dataset) would
    // hold up the proxies, so they are made before the load.
    for (const path of ['/species', '/species/ABBA', '/genus'])
      await fetch(legacy.url + path, { headers: { Authorization: LEGACY_AUTHORIZATION } }).then((r) => r.arrayBuffer());
    const gateway = await startGatewayProcess({
      METRICS_PORT: '0',
      UPSTREAM_URL: at(cacheable),
      UPSTREAM_AUTHORIZATION: DEMO.key,
      LEGACY_V1_URL: at(failing) + new URL(legacy.url).pathname,
      LEGACY_V1_AUTHORIZATION: LEGACY_AUTHORIZATION,
      V1_ANSWER: 'legacy',
      V1_COMPARE_PERCENT: '100',
      RATE_LIMIT_PER_MINUTE: '1000000000',
      TOKEN_RATE_LIMIT_PER_MINUTE: '1',
      AUTH_FAILURES_PER_MINUTE: '3',
      // The guesser below comes "through a proxy", so only its address is throttled, not the load's.
      TRUST_PROXY: 'true',
      TOKEN_SIGNING_SECRET: 'observed',
    });
    const listening = JSON.parse(gateway.lines.find((l) => l.includes('gateway listening'))!) as { metrics: { host: string; port: number } };
    const stopAll = async () => {
      await Promise.all([gateway.stop(), upstream.stop(), legacy?.close(), closed(cacheable), closed(failing)]);
    };
    return { origin: gateway.origin, metricsTarget: `127.0.0.1:${listening.metrics.port}`, gateway, stop: stopAll };
  } catch (err) {
    await Promise.all([upstream.stop(), legacy?.close(), closed(cacheable), closed(failing)]);
    throw err;
  }
}

/** An id both backends fail on (503), whatever they would have answered. */
const FAILING_ID = 'NOT-COMPARED';

/**
 * Forwards to `origin`, failing the one id above. `cacheable`: says of each 200 that a shared cache
 * may keep it for 30 s: the gateway used as the upstream here says `private` to its own
 * authenticated callers, which a canonical backend serving the gateway does not, and the upstream
 * cache's lookups are part of what is observed.
 */
async function proxy(origin: string, cacheable: boolean): Promise<Server> {
  const target = new URL(origin);
  const server = createServer((req, res) => {
    // One id the backends fail on: its v1 request is refused, its comparison not made.
    if (req.url?.includes(FAILING_ID)) {
      res.writeHead(503, { 'Content-Type': 'application/json' });
      return res.end('{}');
    }
    const forwarded = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      const headers = { ...answer.headers };
      if (cacheable && answer.statusCode === 200) {
        headers['cache-control'] = 'max-age=30';
        delete headers.vary;
      }
      res.writeHead(answer.statusCode ?? 502, headers);
      answer.pipe(res);
    });
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

const at = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const closed = (server: Server | undefined) =>
  new Promise<void>((resolve) => {
    if (!server) return resolve();
    server.closeAllConnections();
    server.close(() => resolve());
  });

const KEY = DEMO.key;
const get = (origin: string, path: string, headers: Record<string, string> = { Authorization: KEY }) =>
  fetch(origin + path, { headers }).then(
    (r) => r.arrayBuffer().then(() => r.status),
    () => 0,
  );

/** One round of the mixed load; `n` varies ids, queries and guessed credentials. */
export async function mixedRound(origin: string, n: number): Promise<void> {
  await Promise.all([
    get(origin, '/v2/species'),
    get(origin, `/v2/species?q=abies&page=${(n % 3) + 1}`),
    get(origin, '/v2/species/ABBA'),
    get(origin, '/v2/genus/Abies/species'),
    get(origin, `/v2/species/NO-SUCH-${n % 5}`),
    get(origin, '/api/v1/species?key=demo-project-key', {}),
    get(origin, '/v1/species/ABBA', { 'X-API-Key': 'demo-project-key' }),
    get(origin, '/v1/genus', { Authorization: KEY }),
    get(origin, `/v1/species/${FAILING_ID}`, { Authorization: KEY }),
    get(origin, '/v3/species', { Authorization: DEMO.personalToken }),
    get(origin, '/v2/species', { Authorization: `ApiKey guessed-${n}`, 'X-Forwarded-For': '203.0.113.9' }),
    get(origin, `/no/such/path/${n}`, {}),
    get(origin, '/healthz', {}),
    fetch(`${origin}/oauth/token`, {
      method: 'POST',
      headers: {
        Authorization: `Basic ${btoa(`${DEMO.clientId}:${DEMO.clientSecret}`)}`,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    }).then(
      (r) => r.arrayBuffer(),
      () => undefined,
    ),
  ]);
  if (n % 5 === 0) await refusedByNode(origin);
}

/** A request with two Host headers: Node's layer of the gateway refuses it (400) before any route. */
function refusedByNode(origin: string): Promise<void> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => socket.end('GET /v2/species HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n'));
    socket.on('data', () => {});
    socket.on('close', () => resolve());
    socket.on('error', () => resolve());
  });
}

/** Runs rounds of the mixed load until `stop()` is called. */
export function runMixedLoad(origin: string): { stop(): Promise<number> } {
  let running = true;
  let rounds = 0;
  const loop = (async () => {
    while (running) {
      await mixedRound(origin, rounds++);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return rounds;
    },
  };
}
