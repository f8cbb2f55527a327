import { allOf, andThen, isPromise, type MaybePromise } from '../../../core/maybe-promise';
import { readContainer, type SectionData } from './container';
import { chunkOf } from './fences';
import { openIdChunk, positionIn, type IdChunk } from './id-chunk';
import { ORDER_CHUNK, RECORD_CHUNK, section, type ResourceMeta } from './layout';
import { PieceCache } from './piece-cache';
import { headOf, recordChunkOf, storedRecord, type Part, type RecordChunk, type StoredRecord } from './record-chunk';
import type { SectionStore } from './store';

export type { StoredRecord } from './record-chunk';

/** Resources a `PieceCache` can tell apart by the numeric keys of their record chunks. */
const SLOTS = 16;

/**
 * One resource of the compiled dataset: records by position (default, numeric-aware id order),
 * their stored bytes and validators, field orders and child lists. Sections are loaded on first
 * use; nothing is decoded but what a request touches. Chunk pieces are kept in a `PieceCache`
 * (bounded, shared); the whole-resource sections (ranks, child lists, order chunks) are few and
 * small, and kept.
 */
export class CompiledResource {
  private readonly derived = new Map<string, Uint32Array>();
  private readonly fixed = new Map<string, Uint32Array>();
  private readonly orderChunks = new Map<string, Array<Uint32Array | undefined>>();

  /**
   * @param slot tells this resource's record chunks apart from other resources' in a shared cache (0-15).
   */
  constructor(
    private readonly store: SectionStore,
    readonly name: string,
    readonly meta: ResourceMeta,
    private readonly cache: PieceCache = new PieceCache(),
    private readonly slot = 0,
  ) {}

  get count(): number {
    return this.meta.count;
  }

  /** Whether records are read in place (a local file: `SectionStore.range`), where a read is a system call, not a fetch. */
  get readsInPlace(): boolean {
    return this.store.range !== undefined;
  }

  /** A whole-resource section (ranks, child lists), loaded once and kept. */
  private async u32(name: string): Promise<Uint32Array> {
    let known = this.fixed.get(name);
    if (!known) this.fixed.set(name, (known = (await this.store.load(name)) as Uint32Array));
    return known;
  }

  /** A piece opened by `open` and kept in the cache under `key`; synchronously when the cache has it. */
  private cached<T extends object>(key: string | number, name: string, open: (bytes: SectionData) => T): MaybePromise<T> {
    const held = this.cache.get(key);
    if (held) return held as T;
    const keep = (bytes: SectionData): T => {
      const value = open(bytes);
      this.cache.set(key, value, bytes.byteLength);
      return value;
    };
    return andThen(this.store.load(name), keep);
  }

  /** A chunk piece (a small container of its own), opened once while cached; synchronously when it is. */
  part(name: string): MaybePromise<Part> {
    return this.cached(name, name, (bytes) => readContainer<null>(bytes as Uint8Array));
  }

  /** The chunk pieces `name(k)` for every `k` in `ks`, fetched together. */
  async parts(name: (k: number) => string, ks: Iterable<number>): Promise<Map<number, Part>> {
    const unique = [...new Set(ks)];
    const loaded = await allOf(unique.map((k) => this.part(name(k))));
    return new Map(unique.map((k, i) => [k, loaded[i]!]));
  }

  private idChunk(k: number): MaybePromise<IdChunk> {
    const name = section.ids(this.name, k);
    return this.cached(name, name, openIdChunk);
  }

  /** The position of the record with `id`: its id-index chunk by the fences, then a binary search. */
  async position(id: string): Promise<number | undefined> {
    const k = chunkOf(this.meta.idFences, id);
    if (k < 0) return undefined;
    const chunk = this.idChunk(k);
    return positionIn(isPromise(chunk) ? await chunk : chunk, id);
  }

  /**
   * Record chunk `k`, its sections looked up once while cached; synchronously when it is. From a
   * store that reads parts of pieces (a local file), only the chunk's head is kept (its header,
   * offsets and validators: the JSON is the container's last section) and the JSON of records is
   * read when a request needs it: the operating system's page cache holds the records, not the
   * process.
   */
  private recordChunk(k: number): MaybePromise<RecordChunk> {
    const key = this.slot + SLOTS * k;
    // Looked up before the section's name is built: a page asks for a chunk once per record.
    const held = this.cache.get(key);
    if (held) return held as RecordChunk;
    const name = section.records(this.name, k);
    const chunk = (part: Part, json: (from: number, to: number) => Uint8Array) => recordChunkOf(part, json, this.meta.counts);
    const range = this.store.range?.bind(this.store);
    if (range) {
      const { head, jsonAt } = headOf((from, to) => range(name, from, to));
      const value = chunk(head, (from, to) => range(name, jsonAt + from, jsonAt + to));
      this.cache.set(key, value, jsonAt);
      return value;
    }
    return this.cached(key, name, (bytes) => {
      const part = readContainer<null>(bytes as Uint8Array);
      const json = part.section('json') as Uint8Array;
      return chunk(part, (from, to) => json.subarray(from, to));
    });
  }

  /**
   * The canonical JSON bytes of the records at `positions`, in that order. Consecutive positions
   * of one chunk are read together (a page in default order is one or two reads).
   */
  async records(positions: ArrayLike<number>): Promise<Uint8Array[]> {
    const chunks: MaybePromise<RecordChunk>[] = new Array(positions.length);
    for (let i = 0; i < positions.length; i++) chunks[i] = this.recordChunk((positions[i]! / RECORD_CHUNK) | 0);
    const settled = allOf(chunks);
    const ready = isPromise(settled) ? await settled : settled;
    const out: Uint8Array[] = new Array(positions.length);
    for (let i = 0; i < positions.length; ) {
      const chunk = ready[i]!;
      const first = positions[i]! % RECORD_CHUNK;
      // The run: the next positions, one after another, within this chunk.
      let last = first + 1;
      while (last < RECORD_CHUNK && i + last - first < positions.length && positions[i + last - first] === positions[i]! + last - first) last++;
      const run = chunk.json(first, last);
      const base = chunk.offsets[first]!;
      for (let local = first; local < last; local++, i++) out[i] = run.subarray(chunk.offsets[local]! - base, chunk.offsets[local + 1]! - base);
    }
    return out;
  }

  /** The record at `at` with its validators and detail counts, from its chunk. */
  async record(at: number): Promise<StoredRecord> {
    const loaded = this.recordChunk((at / RECORD_CHUNK) | 0);
    return storedRecord(isPromise(loaded) ? await loaded : loaded, at % RECORD_CHUNK, this.meta.counts);
  }

  /** Dense ranks of `field` by position; `id` ranks are the positions themselves (undefined). */
  async ranks(field: string): Promise<Uint32Array | undefined> {
    return field === 'id' ? undefined : this.u32(section.ranks(this.name, field));
  }

  /** Positions `[offset, offset + limit)` of every record in one field's order, reading only those order chunks. */
  async orderWindow(field: string, direction: 'asc' | 'desc', offset: number, limit: number): Promise<Uint32Array> {
    const end = Math.min(offset + limit, this.count);
    if (offset >= end) return new Uint32Array(0);
    if (field === 'id') return Uint32Array.from({ length: end - offset }, (_, i) => (direction === 'asc' ? offset + i : this.count - 1 - offset - i));
    const first = Math.floor(offset / ORDER_CHUNK);
    const last = Math.floor((end - 1) / ORDER_CHUNK);
    const key = `${field}:${direction}`;
    let chunks = this.orderChunks.get(key);
    if (!chunks) this.orderChunks.set(key, (chunks = []));
    const known = chunks;
    const pieces = await allOf(
      Array.from({ length: last - first + 1 }, (_, i) => {
        const k = first + i;
        const held = known[k];
        if (held) return held;
        const loaded = this.store.load(section.order(this.name, field, direction, k)) as MaybePromise<Uint32Array>;
        return andThen(loaded, (c) => (known[k] = c));
      }),
    );
    const joined = pieces.length === 1 ? pieces[0]! : Uint32Array.from(pieces.flatMap((p) => [...p]));
    return joined.subarray(offset - first * ORDER_CHUNK, end - first * ORDER_CHUNK);
  }

  /**
   * Every position ordered by one field: nulls last either way, ties by id ascending. Kept; shared
   * with the order chunks it was read from when it is one of them (callers copy before sorting).
   */
  async order(field: string, direction: 'asc' | 'desc'): Promise<Uint32Array> {
    const key = `${field}:${direction}`;
    let order = this.derived.get(key);
    if (!order) {
      order = await this.orderWindow(field, direction, 0, this.count);
      this.derived.set(key, order);
    }
    return order;
  }

  /** Positions of the children of the parent at `parentAt` (ascending, so in id order). */
  async children(parent: string, parentAt: number): Promise<Uint32Array> {
    const [start, positions] = await Promise.all([this.u32(section.childStart(this.name, parent)), this.u32(section.children(this.name, parent))]);
    return positions.subarray(start[parentAt]!, start[parentAt + 1]!);
  }
}
