/**
 * What a fresh isolate reads for its first request of each kind, in rounds: the pieces of a round
 * are fetched together, and a round starts only once the previous one has answered (each round is
 * a trip through the assets binding at the edge). Reading ahead and the record fences may change
 * how many rounds a request waits for, never what it answers.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HOT, INDEX } from '../../../../../scripts/compile-data';
import { fileStore } from '../../../../../src/node';
import { BundledSource } from '../../../../../src/services/bundled/bundled-source';
import { readContainer } from '../../../../../src/services/bundled/compiled/container';
import { idCollator } from '../../../../../src/core/text';
import { POSTINGS_CHUNK_BYTES, RECORD_CHUNK, section, type CompiledMeta } from '../../../../../src/services/bundled/compiled/layout';
import type { CompiledResource } from '../../../../../src/services/bundled/compiled/resource';
import { sortedRecords } from '../../../../../src/services/bundled/compiled/sorted';
import type { PieceIndex } from '../../../../../src/services/bundled/compiled/piece-index';
import { pieceStore, type SectionStore } from '../../../../../src/services/bundled/compiled/store';
import type { ListQuery, RecordSource, ResourceName } from '../../../../../src/services/record-source';
import { dataset } from '../../../../support/harness';
import { firstReads, firstSearch } from '../../../../../bench/search-terms';

const index = JSON.parse(readFileSync(INDEX, 'utf8')) as PieceIndex;
const hot = new Uint8Array(readFileSync(HOT));
const piece = (name: string): ArrayBuffer => {
  const bytes = readFileSync(new URL(`../../../../../generated/assets/${name}`, import.meta.url));
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
};
const ctx = { requestId: 't' };

/** What a request read, round by round (piece names without `.bin`, sorted), and what it answered. */
interface Reads<T> {
  answer: T;
  rounds: string[][];
}

/**
 * Runs `request` against a fresh source over the pieces as the worker reads them (its carried
 * pieces included), holding every fetch until the request can go no further without one: then
 * the pieces it waits for are answered together, as one round. `fail` names pieces whose first
 * fetch fails.
 */
async function rounds<T>(request: (source: RecordSource) => Promise<T>, meta: CompiledMeta = index.meta, fail: string[] = []): Promise<Reads<T>> {
  const held: Array<{ name: string; answer: () => void }> = [];
  const failed = new Set<string>();
  const store = pieceStore(
    { ...index, meta },
    (name) =>
      new Promise<ArrayBuffer>((resolve, reject) =>
        held.push({
          name,
          answer: () => {
            const bare = name.replace(/\.bin$/, '');
            if (fail.includes(bare) && !failed.has(bare)) {
              failed.add(bare);
              reject(new Error(`${bare} failed`));
            } else resolve(piece(name));
          },
        }),
      ),
    hot,
  );
  let settled = false;
  const answer = request(new BundledSource(store)).finally(() => {
    settled = true;
  });
  const out: string[][] = [];
  for (let idle = 0; !settled && idle < 50; ) {
    await new Promise((r) => setImmediate(r));
    if (held.length === 0) {
      idle++;
      continue;
    }
    const round = held.splice(0);
    out.push(round.map((h) => h.name.replace(/\.bin$/, '')).sort());
    for (const h of round) h.answer();
  }
  return { answer: await answer, rounds: out };
}

const reference: RecordSource = new BundledSource(fileStore());
const list = (resource: ResourceName, query: Partial<ListQuery>) => (source: RecordSource) =>
  source.list(resource, { q: undefined, order: [], page: 1, ...query }, undefined, ctx);
const kinds = (round: string[]) => [...new Set(round.map((name) => name.split('.').slice(0, 2).join('.')))].sort();

describe('a first search', () => {
  it('reads the chunks of its keys, then its page records: two rounds, no text checked', async () => {
    for (const q of ['abies', 'rosa', 'ro', 'quercus', 'mint', 'a', 'Abies balsamea']) {
      const { answer, rounds: read } = await rounds(list('species', { q }));
      expect(answer, q).toEqual(await list('species', { q })(reference));
      expect(read.map(kinds), `${q}: ${JSON.stringify(read)}`).toEqual([['species.grams'], ['species.records']]);
    }
  });

  it('reads at most one chunk per gram covering the needle (offsets 0, 3, 6, ... and the last), and one for a shorter needle', async () => {
    for (const q of ['ro', 'ros', 'rosa', 'rosaceae', 'quercus alba', 'Pseudotsuga menziesii']) {
      const { rounds: read } = await rounds(list('species', { q }));
      const n = q.length;
      const cover = n < 3 ? 1 : Math.ceil((n - 3) / 3) + 1;
      expect(read[0]!.length, `${q}: ${JSON.stringify(read[0])}`).toBeLessThanOrEqual(cover);
    }
  });

  // The worst of every listed term (`npm run bench:edge`: every two-letter needle, the 200 most
  // common three- and four-letter ones, every genus name) read 24 pieces, 242 KB: its page's 20
  // records in 20 chunks, and the chunks of its grams.
  const BOUND = { rounds: 2, pieces: 24, bytes: 256 * 1024 };
  it(`reads at most ${BOUND.rounds} rounds, ${BOUND.pieces} pieces and ${BOUND.bytes / 1024} KB for the worst listed terms and common words`, async () => {
    for (const q of ['Caesalpinia', 'Antirrhinum', 'teri', 'Polypodium', 'Stachys', 'iy', 'rosa', 'ro', 'quercus', 'e']) {
      const { answer, reads } = await firstReads(firstSearch(q));
      expect(answer, q).toEqual(await firstSearch(q)(reference));
      expect(reads.rounds, `${q}: ${JSON.stringify(reads)}`).toBeLessThanOrEqual(BOUND.rounds);
      expect(reads.pieces, `${q}: ${JSON.stringify(reads)}`).toBeLessThanOrEqual(BOUND.pieces);
      expect(reads.bytes, `${q}: ${JSON.stringify(reads)}`).toBeLessThanOrEqual(BOUND.bytes);
    }
  });

  it('of a sorted search or a scope reads its keys, then its records', async () => {
    const query = { q: 'abies', order: [{ field: 'common_name', direction: 'desc' as const }] };
    const sorted = await rounds(list('species', query));
    expect(sorted.answer).toEqual(await list('species', query)(reference));
    expect(sorted.rounds.map(kinds), JSON.stringify(sorted.rounds)).toEqual([['species.grams', 'species.ranks'], ['species.records']]);
  });

  it('of exactly one gram reads its grams, then its records: the postings are the answer', async () => {
    const { answer, rounds: read } = await rounds(list('species', { q: 'fir' }));
    expect(answer).toEqual(await list('species', { q: 'fir' })(reference));
    expect(read.map(kinds)).toEqual([['species.grams'], ['species.records']]);
  });
});

describe('a first sorted page', () => {
  const sorted = (field: string, direction: 'asc' | 'desc', page: number) => list('species', { order: [{ field, direction }], page });

  it('reads one piece near the start of a stored order: its records stored in that order', async () => {
    for (const [field, direction, page] of [
      ['common_name', 'desc', 2],
      ['scientific_name', 'asc', 1],
      ['year', 'desc', 51],
    ] as const) {
      const { answer, rounds: read } = await rounds(sorted(field, direction, page));
      expect(answer, `${field} ${direction} page ${page}`).toEqual(await sorted(field, direction, page)(reference));
      expect(read, `${field} ${direction} page ${page}`).toEqual([[`species.sorted.${field}.${direction}.${Math.floor(((page - 1) * 20) / 40)}`]]);
    }
  });

  it("reads its records' own chunks beyond them, in one round once the order chunk is read", async () => {
    const { answer, rounds: read } = await rounds(sorted('common_name', 'desc', 52));
    expect(answer).toEqual(await sorted('common_name', 'desc', 52)(reference));
    expect(read.map(kinds)).toEqual([['species.order'], ['species.records']]);
  });

  it('past the last page reads no piece, even where every record of the order is stored in it (families)', async () => {
    for (const page of [20, 21, 40]) {
      const query = { order: [{ field: 'name', direction: 'asc' as const }], page };
      const { answer, rounds: read } = await rounds(list('families', query));
      expect(answer, `page ${page}`).toEqual(await list('families', query)(reference));
      expect(answer!.items, `page ${page}`).toEqual([]);
      expect(read, `page ${page}`).toEqual([]);
    }
  });

  it("in id order reads the records' own chunks, which are that order (no copies are stored for it)", async () => {
    for (const [direction, page] of [
      ['asc', 1],
      ['desc', 1],
      ['asc', 30],
    ] as const) {
      const { answer, rounds: read } = await rounds(sorted('id', direction, page));
      expect(answer, `id ${direction} page ${page}`).toEqual(await sorted('id', direction, page)(reference));
      expect(read.map(kinds), `id ${direction} page ${page}`).toEqual([['species.records']]);
    }
  });
});

describe('a first detail', () => {
  const get = (id: string) => (source: RecordSource) => source.get('species', id, ctx);

  it('reads one piece, its record chunk, found through the record fences', async () => {
    const species = dataset.species;
    for (const id of ['ABBA', species[1]!.id, species[5000]!.id, species[20000]!.id, species.at(-1)!.id]) {
      const { answer, rounds: read } = await rounds(get(id));
      expect(answer, id).toEqual(await get(id)(reference));
      expect(answer, id).toBeDefined();
      expect(read, id).toEqual([[expect.stringMatching(/^species\.records\.\d+$/)]]);
    }
  });

  it('answers every record of whole record chunks by its own id, and ids beside real ones with nothing', async () => {
    const byId = [...dataset.species.map((s) => s.id)].sort(idCollator.compare);
    const real = new Set(byId);
    const last = Math.floor((byId.length - 1) / RECORD_CHUNK);
    const chunks = [0, 1, 347, last].map((k) => byId.slice(k * RECORD_CHUNK, (k + 1) * RECORD_CHUNK));
    // A fresh source per id for the first and last of each chunk: the fence decides alone.
    for (const id of chunks.flatMap((c) => [c[0]!, c.at(-1)!])) {
      const { answer } = await rounds(get(id));
      expect((answer?.record as { id: string } | undefined)?.id, id).toBe(id);
      expect(answer, id).toEqual(await get(id)(reference));
    }
    // One source for all of them, in turn: chunks held from earlier details answer later ones.
    const ids = chunks.flat();
    const near = [...new Set(ids.flatMap((id) => [id.toLowerCase(), `${id}0`, `${id}A`, id.slice(0, -1), ` ${id}`]))].filter((id) => !real.has(id));
    const { answer } = await rounds(async (source) => {
      const found: Record<string, string | undefined> = {};
      for (const id of [...ids, ...near]) found[id] = ((await source.get('species', id, ctx))?.record as { id: string } | undefined)?.id;
      return found;
    });
    expect(answer).toEqual(Object.fromEntries([...ids.map((id) => [id, id]), ...near.map((id) => [id, undefined])]));
  });

  it('reads nothing once its record chunk is held (a search or a page read it)', async () => {
    const { answer, rounds: read } = await rounds(async (source) => {
      await list('species', { q: 'abies' })(source);
      return get('ABBA')(source);
    });
    expect(answer).toEqual(await get('ABBA')(reference));
    // The search's two rounds, and nothing for the detail.
    expect(read.map(kinds), JSON.stringify(read)).toEqual([['species.grams'], ['species.records']]);
  });

  it('of an unknown id reads where it would be, then the id index, and finds nothing', async () => {
    const { answer, rounds: read } = await rounds(get('ABBA99'));
    expect(answer).toBeUndefined();
    expect(read.map(kinds)).toEqual([['species.records'], ['species.ids']]);
  });

  it('of an id before every id reads nothing, and of an id longer than any record reads its chunk and the id index', async () => {
    const before = await rounds(get('0'));
    expect(before.answer).toBeUndefined();
    expect(before.rounds).toEqual([]);
    const long = `ZZ${'Z'.repeat(20_000)}`;
    const { answer, rounds: read } = await rounds(get(long));
    expect(answer).toBeUndefined();
    expect(read.map(kinds)).toEqual([['species.records'], ['species.ids']]);
  });

  it('answers from the id index when the fences point elsewhere (a runtime whose collation differs)', async () => {
    const meta = structuredClone(index.meta);
    for (const r of Object.values(meta.resources)) r.recordFences = [...r.recordFences.slice(1), r.recordFences[0]!].reverse();
    for (const [resource, id] of [
      ['species', 'ABBA'],
      ['species', dataset.species[20000]!.id],
      ['genus', 'Abies'],
      ['plants', dataset.plants[100]!.id],
      ['families', 'Pinaceae'],
    ] as const) {
      const { answer } = await rounds((source) => source.get(resource, id, ctx), meta);
      expect(answer, `${resource}/${id}`).toEqual(await reference.get(resource, id, ctx));
    }
  });

  it('answers from the id index when the artifact has no record fences', async () => {
    const meta = structuredClone(index.meta);
    for (const r of Object.values(meta.resources)) delete (r as { recordFences?: string[] }).recordFences;
    const { answer, rounds: read } = await rounds(get('ABBA'), meta);
    expect(answer).toEqual(await get('ABBA')(reference));
    expect(read.map(kinds)).toEqual([['species.ids'], ['species.records']]);
  });
});

describe('the layout the first reads rely on', () => {
  const store: SectionStore = fileStore();

  it('stores each record as its JSON with `id` first, so a record chunk tells which id each record has', async () => {
    const source = new BundledSource(store);
    for (const resource of ['species', 'genus', 'families', 'plants'] as const) {
      for (const record of dataset[resource].slice(0, 200)) {
        const found = await source.stored.get(resource, record.id, ctx);
        expect(new TextDecoder().decode(found!.record.bytes).startsWith(`{"id":${JSON.stringify(record.id)},`), record.id).toBe(true);
      }
    }
  });

  it('stores the records of the first positions of every stored order in that order, byte for byte', async () => {
    const source = new BundledSource(store);
    const resources = (source as unknown as { resources: Record<ResourceName, CompiledResource> }).resources;
    const joined = (records: Uint8Array[] | undefined) => records && Buffer.concat(records).toString('latin1');
    const differ: string[] = [];
    for (const [resource, meta] of Object.entries(index.meta.resources) as Array<[ResourceName, (typeof index.meta.resources)[string]]>) {
      expect(meta.sortedCopies, resource).toBe(Math.min(1024, meta.count));
      const compiled = resources[resource];
      for (const field of meta.sortable.filter((f) => f !== 'id')) {
        for (const direction of ['asc', 'desc'] as const) {
          let offset = 0;
          for (; offset < meta.count && Math.min(offset + 20, meta.count) <= meta.sortedCopies; offset += 20) {
            const positions = await compiled.orderWindow(field, direction, offset, 20);
            const copied = joined(await sortedRecords(compiled, field, direction, offset, 20));
            if (copied !== joined(await compiled.records(positions))) differ.push(`${resource} ${field} ${direction} ${offset}`);
          }
          // A window reaching past them is read from the records' chunks.
          if (offset < meta.count)
            expect(await sortedRecords(compiled, field, direction, offset, 20), `${resource} ${field} ${direction} ${offset}`).toBeUndefined();
        }
      }
    }
    expect(differ).toEqual([]);
  });

  it('reads a window across two pieces of copies from both, in order', async () => {
    const compiled = (new BundledSource(store) as unknown as { resources: Record<ResourceName, CompiledResource> }).resources.species;
    for (const [offset, limit] of [
      [30, 20],
      [70, 60],
    ]) {
      const copied = await sortedRecords(compiled, 'common_name', 'asc', offset!, limit!);
      const own = await compiled.records(await compiled.orderWindow('common_name', 'asc', offset!, limit!));
      expect(copied && Buffer.concat(copied).toString('latin1'), `${offset}+${limit}`).toBe(Buffer.concat(own).toString('latin1'));
    }
  });

  it('keeps every gram chunk within its byte budget, unless one gram alone is larger', () => {
    for (const [resource, meta] of Object.entries(index.meta.resources)) {
      meta.gramFences.forEach((fence, k) => {
        const part = readContainer<null>(new Uint8Array(piece(`${section.postings(resource, k)}.bin`)));
        const keys = part.section('keys') as Float64Array;
        const postings = part.section('postings') as Uint8Array;
        expect(keys[0], `${resource} chunk ${k}`).toBe(fence);
        if (keys.length > 1) expect(postings.byteLength + keys.length * 12, `${resource} chunk ${k}`).toBeLessThanOrEqual(POSTINGS_CHUNK_BYTES);
      });
      expect([...meta.gramFences].sort((a, b) => a - b)).toEqual(meta.gramFences);
    }
  });
});
