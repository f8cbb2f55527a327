/**
 * `npm run bench:search-reads`: what a fresh isolate's first search reads, for every listed term
 * (bench/search-terms.ts), counted through the piece store with nothing held: pieces, bytes and
 * rounds, with the worst, the 99th percentile and the median. In process and deterministic (no
 * wall time: `npm run bench:edge` times a sample of these terms, the worst ones included, on fresh
 * `wrangler dev` isolates). `--json` prints every term's reads.
 */
import { readFileSync } from 'node:fs';
import { FIXTURE } from '../scripts/compile-data';
import { parseDatasetLines } from '../src/services/bundled/dataset-lines';
import { firstReads, firstSearch, searchTerms, type Reads } from './search-terms';

export interface TermReads extends Reads {
  q: string;
  group: string;
  total: number;
}

/** Every listed term's first-search reads, worst (most bytes) first. */
export async function everyTermReads(): Promise<TermReads[]> {
  const dataset = parseDatasetLines(new Uint8Array(readFileSync(FIXTURE)));
  const out: TermReads[] = [];
  for (const { q, group } of searchTerms(dataset)) {
    const { answer, reads } = await firstReads(firstSearch(q));
    out.push({ q, group, total: answer?.total ?? 0, ...reads });
  }
  return out.sort((a, b) => b.bytes - a.bytes || b.pieces - a.pieces);
}

const at = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

/** Worst, p99 and median of pieces, KB and rounds, as markdown table rows. */
export function summary(rows: TermReads[]): string[] {
  const stats = (values: number[], fmt: (n: number) => string) => {
    const sorted = [...values].sort((a, b) => a - b);
    return `${fmt(sorted.at(-1)!)} / ${fmt(at(sorted, 0.99))} / ${fmt(at(sorted, 0.5))}`;
  };
  const kb = (n: number) => (n / 1024).toFixed(1);
  const groups = [...new Set(rows.map((r) => r.group)), 'all'];
  return groups.map((group) => {
    const of = rows.filter((r) => group === 'all' || r.group === group);
    return `| ${group} | ${of.length} | ${stats(
      of.map((r) => r.pieces),
      String,
    )} | ${stats(
      of.map((r) => r.bytes),
      kb,
    )} | ${stats(
      of.map((r) => r.rounds),
      String,
    )} |`;
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await everyTermReads();
  if (process.argv.includes('--json')) console.log(JSON.stringify(rows.map(({ names, ...r }) => r)));
  else {
    console.log('| terms | count | pieces (worst / p99 / median) | KB (worst / p99 / median) | rounds (worst / p99 / median) |');
    console.log('|---|---:|---:|---:|---:|');
    for (const row of summary(rows)) console.log(row);
    console.log('\nMost bytes:');
    for (const r of rows.slice(0, 8))
      console.log(`  q=${r.q} (${r.group}, ${r.total} results): ${r.pieces} pieces, ${(r.bytes / 1024).toFixed(1)} KB, ${r.rounds} rounds`);
  }
}
