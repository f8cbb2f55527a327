/**
 * How much the start-up indexes save: a page of `q` + `order[...]` through the bundled source,
 * against the naive filter-and-sort of all records a request would otherwise do.
 * Run: npm run bench:core. Prints ratios; asserts nothing.
 */
import { readFileSync } from 'node:fs';
import type { Dataset, SpeciesRecord } from '../src/core/records';
import { fold, textCollator } from '../src/core/text';
import { BundledSource } from '../src/services/bundled/bundled-source';
import type { ListQuery, RecordSource } from '../src/services/record-source';

const dataset: Dataset = JSON.parse(readFileSync(new URL('../fixtures/taxa.json', import.meta.url), 'utf8'));
let t = performance.now();
const source: RecordSource = new BundledSource(dataset);
console.log(`index build: ${(performance.now() - t).toFixed(0)} ms for ${dataset.species.length} species`);

function naive(q: string, field: keyof SpeciesRecord, page: number): string[] {
  const needle = fold(q);
  return dataset.species
    .filter((s) =>
      [s.scientific_name, s.common_name, ...Object.values(s.common_names).flat(), ...s.synonyms].some((x) => x !== null && fold(x).includes(needle)),
    )
    .sort((a, b) => -textCollator.compare(String(a[field]), String(b[field])) || (a.id < b.id ? -1 : 1))
    .slice((page - 1) * 20, page * 20)
    .map((s) => s.id);
}

async function time(label: string, runs: number, fn: (i: number) => unknown): Promise<number> {
  for (let i = 0; i < 5; i++) await fn(i);
  t = performance.now();
  for (let i = 0; i < runs; i++) await fn(i);
  const us = ((performance.now() - t) / runs) * 1000;
  console.log(`${label.padEnd(58)} ${us.toFixed(1).padStart(9)} µs/request`);
  return us;
}

const cases: Array<[string, ListQuery]> = [
  ['no q, order[scientific_name]=desc, page 800', { q: undefined, order: [{ field: 'scientific_name', direction: 'desc' }], page: 800 }],
  ['q=rose (same q, warm), order[scientific_name]=desc', { q: 'rose', order: [{ field: 'scientific_name', direction: 'desc' }], page: 2 }],
];
const ctx = { requestId: 'bench' };
const indexed1 = await time(`indexed: ${cases[0]![0]}`, 2000, () => source.list('species', cases[0]![1], undefined, ctx));
const indexed2 = await time(`indexed: ${cases[1]![0]}`, 2000, () => source.list('species', cases[1]![1], undefined, ctx));
const words = ['rose', 'oak', 'fern', 'sedge', 'pine', 'lily', 'moss', 'grass', 'aster', 'willow'];
const cold = await time('indexed: a new q each request (scan, no cache hit)', 500, (i) =>
  source.list(
    'species',
    {
      q: `${words[i % words.length]}${i}`.slice(0, 3 + (i % 4)) + String.fromCharCode(97 + (i % 26)),
      order: [{ field: 'scientific_name', direction: 'desc' }],
      page: 1,
    },
    undefined,
    ctx,
  ),
);
const naiveUs = await time('naive: filter + full sort per request (q=rose)', 50, () => naive('rose', 'scientific_name', 2));
console.log(`\nratio naive / indexed (warm q): ${(naiveUs / indexed2).toFixed(0)}x`);
console.log(`ratio naive / indexed (new q):  ${(naiveUs / cold).toFixed(1)}x`);
console.log(`ratio naive / indexed (no q, deep page): ${(naiveUs / indexed1).toFixed(0)}x`);
