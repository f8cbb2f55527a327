import { readContainer, type SectionData } from './container';
import { ORDER_CHUNK, RECORD_CHUNK, section, type ResourceMeta } from './layout';
import type { SectionStore } from './store';

const decoder = new TextDecoder();

type Part = ReturnType<typeof readContainer<null>>;

interface RecordChunk {
  json: Uint8Array;
  offsets: Uint32Array;
  etags: Uint32Array;
  lastModified: Uint32Array;
  part: Part;
}

/** Like `Promise.all`, without a promise per value when every value is already there (a warm store). */
function settle<T>(values: Array<T | Promise<T>>): T[] | Promise<T[]> {
  return values.some((v) => v instanceof Promise) ? Promise.all(values) : (values as T[]);
}

const instants = new Map<number, string>();
/** Seconds as RFC 3339 UTC (`2026-03-18T00:00:00Z`); records share a handful of instants, so each is formatted once. */
function rfc3339(seconds: number): string {
  let text = instants.get(seconds);
  if (text === undefined) {
    text = new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
    if (instants.size < 4096) instants.set(seconds, text);
  }
  return text;
}

/**
 * One resource of the compiled dataset: records by position (default, numeric-aware id order),
 * their stored bytes and validators, field orders and child lists. Sections are loaded on first
 * use; nothing is decoded but what a request touches.
 */
export class CompiledResource {
  private readonly derived = new Map<string, Uint32Array>();
  private readonly opened = new Map<string, Part>();
  /** Record chunks by index, their sections already looked up: the hot path of every page. */
  private readonly recordChunks: Array<RecordChunk | undefined> = [];
  private readonly orderChunks = new Map<string, Array<Uint32Array | undefined>>();

  constructor(
    private readonly store: SectionStore,
    readonly name: string,
    readonly meta: ResourceMeta,
  ) {}

  get count(): number {
    return this.meta.count;
  }

  async u32(name: string): Promise<Uint32Array> {
    return (await this.store.load(name)) as Uint32Array;
  }

  /** A chunk piece (a small container of its own), opened once; synchronously when the store has it. */
  part(name: string): Part | Promise<Part> {
    const known = this.opened.get(name);
    if (known) return known;
    const open = (bytes: SectionData) => {
      const part = readContainer<null>(bytes as Uint8Array);
      this.opened.set(name, part);
      return part;
    };
    const loaded = this.store.load(name);
    return loaded instanceof Promise ? loaded.then(open) : open(loaded);
  }

  /** The chunk pieces `name(k)` for every `k` in `ks`, fetched together. */
  async parts(name: (k: number) => string, ks: Iterable<number>): Promise<Map<number, Part>> {
    const unique = [...new Set(ks)];
    const loaded = await settle(unique.map((k) => this.part(name(k))));
    return new Map(unique.map((k, i) => [k, loaded[i]!]));
  }

  /** The position of the record with `id`: its id-index chunk by the fences, then a binary search. */
  async position(id: string): Promise<number | undefined> {
    const fences = this.meta.idFences;
    let k = -1;
    for (let lo = 0, hi = fences.length - 1; lo <= hi; ) {
      const mid = (lo + hi) >>> 1;
      if (fences[mid]! <= id) (k = mid), (lo = mid + 1);
      else hi = mid - 1;
    }
    if (k < 0) return undefined;
    const part = await this.part(section.ids(this.name, k));
    const text = part.section('text') as Uint8Array;
    const offsets = part.section('offsets') as Uint32Array;
    const positions = part.section('positions') as Uint32Array;
    for (let lo = 0, hi = positions.length - 1; lo <= hi; ) {
      const mid = (lo + hi) >>> 1;
      const candidate = decoder.decode(text.subarray(offsets[mid]!, offsets[mid + 1]!));
      if (candidate === id) return positions[mid]!;
      if (candidate < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  /** Record chunk `k`, opened once; synchronously when the store already holds it. */
  private recordChunk(k: number): RecordChunk | Promise<RecordChunk> {
    const known = this.recordChunks[k];
    if (known) return known;
    const open = (part: Part): RecordChunk => {
      const chunk = { json: part.section('json') as Uint8Array, offsets: part.section('offsets') as Uint32Array, etags: part.section('etags') as Uint32Array, lastModified: part.section('lastModified') as Uint32Array, part };
      this.recordChunks[k] = chunk;
      return chunk;
    };
    const part = this.part(section.records(this.name, k));
    return part instanceof Promise ? part.then(open) : open(part);
  }

  /** The canonical JSON bytes of the records at `positions`, in that order. */
  async records(positions: ArrayLike<number>): Promise<Uint8Array[]> {
    let missing: Array<Promise<RecordChunk>> | undefined;
    for (let i = 0; i < positions.length; i++) {
      const chunk = this.recordChunk((positions[i]! / RECORD_CHUNK) | 0);
      if (chunk instanceof Promise) (missing ??= []).push(chunk);
    }
    if (missing) await Promise.all(missing);
    const out: Uint8Array[] = new Array(positions.length);
    for (let i = 0; i < positions.length; i++) {
      const at = positions[i]!;
      const { json, offsets } = this.recordChunks[(at / RECORD_CHUNK) | 0]!;
      const local = at % RECORD_CHUNK;
      out[i] = json.subarray(offsets[local]!, offsets[local + 1]!);
    }
    return out;
  }

  /** A record's validators and detail counts, from its chunk. */
  async recordFacts(at: number): Promise<{ etag: string; lastModified: string; counts: Record<string, number> }> {
    const { etags, lastModified, part } = await this.recordChunk((at / RECORD_CHUNK) | 0);
    const i = at % RECORD_CHUNK;
    const counts: Record<string, number> = {};
    for (const name of this.meta.counts) counts[name] = (part.section(`count.${name}`) as Uint32Array)[i]!;
    return {
      etag: etags[2 * i]!.toString(16).padStart(8, '0') + etags[2 * i + 1]!.toString(16).padStart(8, '0'),
      lastModified: rfc3339(lastModified[i]!),
      counts,
    };
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
    const pieces = await settle(
      Array.from({ length: last - first + 1 }, (_, i) => {
        const k = first + i;
        const held = known[k];
        if (held) return held;
        const loaded = this.store.load(section.order(this.name, field, direction, k)) as Uint32Array | Promise<Uint32Array>;
        return loaded instanceof Promise ? loaded.then((c) => (known[k] = c)) : (known[k] = loaded);
      }),
    );
    const joined = pieces.length === 1 ? pieces[0]! : Uint32Array.from(pieces.flatMap((p) => [...p]));
    return joined.subarray(offset - first * ORDER_CHUNK, end - first * ORDER_CHUNK);
  }

  /** Every position ordered by one field: nulls last either way, ties by id ascending. */
  async order(field: string, direction: 'asc' | 'desc'): Promise<Uint32Array> {
    const key = `${field}:${direction}`;
    let order = this.derived.get(key);
    if (!order) {
      order = field === 'id' ? await this.orderWindow(field, direction, 0, this.count) : Uint32Array.from(await this.orderWindow(field, direction, 0, this.count));
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
