/**
 * Rough in-process cost of a v1 page against the v2 page it is read from (`npx tsx bench/v1-vs-v2.ts`).
 * Same app, same data; requests interleaved so warm-up and GC hit both versions alike.
 */
import { testApp } from '../test/support/harness';

const ROUNDS = 400;
const CASES: [string, (v: 'v1' | 'v2', i: number) => string][] = [
  [
    'species?q=oak (316), page by page',
    (v, i) => (v === 'v1' ? `/v1/species?q=oak&page=${(i % 32) + 1}` : `/v2/species?q=oak&page=${Math.floor((i % 32) / 2) + 1}`),
  ],
  ['species, no query, page by page', (v, i) => (v === 'v1' ? `/v1/species?page=${(i % 400) + 1}` : `/v2/species?page=${Math.floor((i % 400) / 2) + 1}`)],
  [
    'species order[common_name]=asc&order[year]=desc',
    (v, i) => `/${v}/species?order[common_name]=asc&order[year]=desc&page=${v === 'v1' ? i + 1 : Math.floor(i / 2) + 1}`,
  ],
  ['species detail ABBA', (v) => `/${v}/species/ABBA`],
];

const t = testApp();
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))]!;

for (const [label, path] of CASES) {
  const times: Record<'v1' | 'v2', number[]> = { v1: [], v2: [] };
  for (let i = 0; i < ROUNDS + 50; i++) {
    for (const v of i % 2 ? (['v1', 'v2'] as const) : (['v2', 'v1'] as const)) {
      const started = performance.now();
      const res = await t.get(path(v, i));
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${path(v, i)} -> ${res.status}`);
      if (i >= 50) times[v].push(performance.now() - started);
    }
  }
  const fmt = (xs: number[]) => `median ${quantile(xs, 0.5).toFixed(3)} ms, p95 ${quantile(xs, 0.95).toFixed(3)} ms`;
  console.log(`${label}\n  v2: ${fmt(times.v2)}\n  v1: ${fmt(times.v1)}  (x${(quantile(times.v1, 0.5) / quantile(times.v2, 0.5)).toFixed(2)} median)`);
}
