/**
 * The route kinds the CPU benchmarks count (`bench:instructions` on Node, `bench:edge-cpu` in
 * workerd), and one sequential client for them: every request over one keep-alive connection, its
 * body read whole, its status checked.
 */
import { Agent, request } from 'node:http';

export const KEY = 'demo-project-key';

export interface Route {
  name: string;
  method?: 'GET' | 'POST';
  /** The paths asked in turn (a few values, so kept answers behave as in real traffic). */
  paths: string[];
  headers?: Record<string, string>;
  body?: string;
  status: number;
}

const pages = (base: string, n = 5) => Array.from({ length: n }, (_, i) => `${base}${base.includes('?') ? '&' : '?'}page=${i + 2}`);
export const ROUTES: Route[] = [
  { name: 'v2 page', paths: pages('/v2/species'), status: 200 },
  {
    name: 'v2 search',
    paths: ['/v2/species?q=oak', '/v2/species?q=rosa', '/v2/species?q=ab', '/v2/species?q=willow', '/v2/species?q=%C3%A9rable'],
    status: 200,
  },
  { name: 'v2 sorted page', paths: pages('/v2/species?order[scientific_name]=desc'), status: 200 },
  { name: 'v2 detail', paths: ['/v2/species/ABBA', '/v2/species/COFL2', '/v2/species/ACRU', '/v2/species/QUAL', '/v2/species/PIST'], status: 200 },
  { name: 'v2 genus species', paths: ['/v2/genus/Abies/species', '/v2/genus/Quercus/species', '/v2/genus/Acer/species'], status: 200 },
  { name: 'v1 page', paths: pages('/v1/species'), headers: { 'x-api-key': KEY }, status: 200 },
  { name: 'v2 404', paths: ['/v2/species/NO-SUCH-1', '/v2/species/NO-SUCH-2', '/v2/species/NO-SUCH-3'], status: 404 },
  {
    name: 'token request',
    method: 'POST',
    paths: ['/oauth/token'],
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&client_id=demo-client&client_secret=demo-client-secret',
    status: 200,
  },
];

/** What the floors answer: the gateway's own v2 page 2 (13 KB), already serialized. */
export const FLOOR_ROUTE: Route = { name: 'floor', paths: ['/v2/species?page=2'], status: 200 };

/** The routes named in `BENCH_ROUTES` (comma-separated), or all of them. */
export function chosenRoutes(): Route[] {
  const only = process.env.BENCH_ROUTES?.split(',').map((s) => s.trim());
  return ROUTES.filter((r) => !only || only.includes(r.name));
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** The `i`-th request of `route` (its paths taken in turn), over the keep-alive connection. */
export function send(origin: string, route: Route, i: number): Promise<Buffer> {
  const url = new URL(route.paths[i % route.paths.length]!, origin);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: route.method ?? 'GET', agent, headers: route.headers ?? { authorization: `ApiKey ${KEY}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        res.statusCode === route.status ? resolve(Buffer.concat(chunks)) : reject(new Error(`${route.name} ${url.pathname}: ${res.statusCode}`)),
      );
    });
    req.on('error', reject);
    req.end(route.body);
  });
}

export async function sendAll(origin: string, route: Route, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await send(origin, route, i);
}

/** `n` requests taking the routes in turn, each path of each route in turn. */
export async function warmUp(origin: string, routes: Route[], n: number): Promise<void> {
  for (let i = 0; i < n; i++) await send(origin, routes[i % routes.length]!, Math.floor(i / routes.length));
}

/** Closes the keep-alive connection, so the process can end. */
export const closeClient = (): void => agent.destroy();
