/**
 * `npx tsx bench/metrics.ts`: what recording one request costs, in one run: the gateway's
 * `requestObserved` (plain-number families read by prom-client's registry when scraped) against
 * prom-client's own labelled `Counter.inc` and `Histogram.observe` for the same observation.
 * A ratio to set beside a v2 page's CPU per request (`npm run bench:http`).
 */
import * as client from 'prom-client';
import { Counter, Histogram, Registry } from 'prom-client';
import { durationBuckets } from '../src/node/families';
import { PrometheusMetrics } from '../src/node/prometheus';
import type { RequestObservation } from '../src/services/metrics';
import { median } from './median';

const N = 1_000_000;
const ROUNDS = 5;
const ROUTES = ['/species', '/species/{id}', '/genus', '/genus/{id}/species'];

const observation = (i: number): RequestObservation => ({
  version: 'v2',
  route: ROUTES[i % ROUTES.length]!,
  method: 'GET',
  status: i % 10 === 0 ? 404 : 200,
  answeredBy: 'gateway',
  durationMs: (i % 100) / 20,
  backend: undefined,
  cache: undefined,
  credentialPlace: 'apiKey',
  subject: 'project:demo',
});
const inputs = Array.from({ length: 64 }, (_, i) => observation(i));

const ours = new PrometheusMetrics(client, { timeoutMs: 5000, build: { version: 'bench', dataset: 'bench' }, runtime: false });
const registry = new Registry();
const counter = new Counter({ name: 'c_total', help: 'c', labelNames: ['version', 'route', 'method', 'status', 'answered_by'], registers: [registry] });
const histogram = new Histogram({ name: 'h_seconds', help: 'h', labelNames: ['version', 'route'], buckets: durationBuckets(5000), registers: [registry] });
const promClient = (o: RequestObservation) => {
  counter.inc({ version: o.version!, route: o.route, method: o.method, status: o.status!, answered_by: o.answeredBy });
  histogram.observe({ version: o.version!, route: o.route }, o.durationMs / 1000);
};

function time(record: (o: RequestObservation) => void): number {
  const began = performance.now();
  for (let i = 0; i < N; i++) record(inputs[i & 63]!);
  return ((performance.now() - began) * 1000) / N;
}

const results = { ours: [] as number[], promClient: [] as number[] };
for (let r = 0; r < ROUNDS; r++) {
  results.ours.push(time((o) => ours.requestObserved(o)));
  results.promClient.push(time(promClient));
}
console.log(`requestObserved: ${median(results.ours).toFixed(3)} µs (rounds: ${results.ours.map((x) => x.toFixed(3)).join(', ')})`);
console.log(`prom-client inc + observe: ${median(results.promClient).toFixed(3)} µs (rounds: ${results.promClient.map((x) => x.toFixed(3)).join(', ')})`);
console.log(`prom-client / requestObserved: ${(median(results.promClient) / median(results.ours)).toFixed(1)}`);
