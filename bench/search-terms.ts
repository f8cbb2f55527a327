/**
 * The search terms that cover a first search's worst cases, and what a fresh isolate reads for
 * one: every two-letter needle, the 200 most common three-letter and four-letter needles of the
 * species' names, and every genus name. Shared by `npm run bench:edge` and the test of the bound
 * (test/node/services/bundled/compiled/first-reads.test.ts).
 */
import { readFileSync } from 'node:fs';
import { HOT, INDEX } from '../scripts/compile-data';
import { fold } from '../src/core/text';
import type { Dataset } from '../src/core/records';
import { BundledSource } from '../src/services/bundled/bundled-source';
import { resourceSpecs } from '../src/services/bundled/compile/spec';
import type { PieceIndex } from '../src/services/bundled/compiled/piece-index';
import { pieceStore } from '../src/services/bundled/compiled/store';
import type { RecordSource } from '../src/services/record-source';

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** The needles of `length` letters held by the most species (each species counted once per needle). */
function mostCommon(dataset: Dataset, length: number, top: number): string[] {
  const spec = resourceSpecs(dataset).species;
  const held = new Map<string, number>();
  for (const record of dataset.species) {
    const seen = new Set<string>();
    for (const field of spec.searchable(record)) {
      if (!field) continue;
      const text = fold(field);
      for (let at = 0; at + length <= text.length; at++) {
        const piece = text.slice(at, at + length);
        if (/^[a-z]+$/.test(piece)) seen.add(piece);
      }
    }
    for (const piece of seen) held.set(piece, (held.get(piece) ?? 0) + 1);
  }
  return [...held]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, top)
    .map(([piece]) => piece);
}

/** Every listed term, each once, with the group it comes from. */
export function searchTerms(dataset: Dataset): Array<{ q: string; group: string }> {
  const out = new Map<string, string>();
  for (const a of LETTERS) for (const b of LETTERS) out.set(a + b, 'two letters');
  for (const q of mostCommon(dataset, 3, 200)) if (!out.has(q)) out.set(q, 'common three letters');
  for (const q of mostCommon(dataset, 4, 200)) if (!out.has(q)) out.set(q, 'common four letters');
  for (const genus of dataset.genus) if (!out.has(genus.name)) out.set(genus.name, 'genus');
  return [...out].map(([q, group]) => ({ q, group }));
}

/** What one request read: pieces fetched, their bytes, and rounds (pieces fetched together, waiting for the previous ones). */
export interface Reads {
  pieces: number;
  bytes: number;
  rounds: number;
  names: string[];
}

const index = JSON.parse(readFileSync(INDEX, 'utf8')) as PieceIndex;
const hot = new Uint8Array(readFileSync(HOT));
const assets = new URL('../generated/assets/', import.meta.url);

/**
 * Runs `request` on a fresh source over the pieces as the worker reads them (its carried pieces
 * included): nothing held, every piece a fetch. Fetches are held until the request can go no
 * further, then answered together: one round.
 */
export async function firstReads<T>(request: (source: RecordSource) => Promise<T>): Promise<{ answer: T; reads: Reads }> {
  const held: Array<{ name: string; answer: () => void }> = [];
  const reads: Reads = { pieces: 0, bytes: 0, rounds: 0, names: [] };
  const store = pieceStore(
    index,
    (name) =>
      new Promise<ArrayBuffer>((resolve) =>
        held.push({
          name,
          answer: () => {
            const bytes = readFileSync(new URL(name, assets));
            reads.pieces++;
            reads.bytes += bytes.byteLength;
            reads.names.push(name.replace(/\.bin$/, ''));
            resolve(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
          },
        }),
      ),
    hot,
  );
  let settled = false;
  const answer = request(new BundledSource(store)).finally(() => {
    settled = true;
  });
  for (let idle = 0; !settled && idle < 50; ) {
    await new Promise((r) => setImmediate(r));
    if (held.length === 0) {
      idle++;
      continue;
    }
    reads.rounds++;
    for (const h of held.splice(0)) h.answer();
  }
  return { answer: await answer, reads };
}

/** The first page of a species search, as `GET /v2/species?q=…` asks the source for it. */
export const firstSearch = (q: string) => (source: RecordSource) => source.list('species', { q, order: [], page: 1 }, undefined, { requestId: 'bench' });
