import { CHUNK, NULL_RANK, section, type ResourceMeta } from './layout';
import type { SectionStore } from './store';

const decoder = new TextDecoder();

/**
 * One resource of the compiled dataset: records by position (default, numeric-aware id order),
 * their stored bytes and validators, field orders and child lists. Sections are loaded on first
 * use; nothing is decoded but what a request touches.
 */
export class CompiledResource {
  private readonly derived = new Map<string, Uint32Array>();

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

  async f64(name: string): Promise<Float64Array> {
    return (await this.store.load(name)) as Float64Array;
  }

  async u8(name: string): Promise<Uint8Array> {
    return (await this.store.load(name)) as Uint8Array;
  }

  /** The position of the record with `id`, by binary search over ids in code-unit order. */
  async position(id: string): Promise<number | undefined> {
    const [text, offsets, byId] = await Promise.all([this.u8(section.ids(this.name)), this.u32(section.idOffsets(this.name)), this.u32(section.byId(this.name))]);
    let lo = 0;
    let hi = byId.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = byId[mid]!;
      const candidate = decoder.decode(text.subarray(offsets[at]!, offsets[at + 1]!));
      if (candidate === id) return at;
      if (candidate < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  /** The canonical JSON bytes of the records at `positions`, in that order. */
  async records(positions: ArrayLike<number>): Promise<Uint8Array[]> {
    const offsets = await this.u32(section.offsets(this.name));
    const out: Uint8Array[] = [];
    for (let i = 0; i < positions.length; i++) {
      const at = positions[i]!;
      const k = Math.floor(at / CHUNK);
      const chunk = await this.u8(section.jsonChunk(this.name, k));
      const base = offsets[k * CHUNK]!;
      out.push(chunk.subarray(offsets[at]! - base, offsets[at + 1]! - base));
    }
    return out;
  }

  /** The stored hash of a record's v2 detail, 16 hex digits. */
  async etag(at: number): Promise<string> {
    const etags = await this.u32(section.etags(this.name));
    return etags[2 * at]!.toString(16).padStart(8, '0') + etags[2 * at + 1]!.toString(16).padStart(8, '0');
  }

  /** When the record last changed, RFC 3339 UTC to the second. */
  async lastModified(at: number): Promise<string> {
    const seconds = (await this.u32(section.lastModified(this.name)))[at]!;
    return new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
  }

  /** The detail's `meta` counts (`synonyms_count`, ...), in their rendering order. */
  async counts(at: number): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const name of this.meta.counts) out[name] = (await this.u32(section.count(this.name, name)))[at]!;
    return out;
  }

  /** Dense ranks of `field` by position; `id` ranks are the positions themselves (undefined). */
  async ranks(field: string): Promise<Uint32Array | undefined> {
    return field === 'id' ? undefined : this.u32(section.ranks(this.name, field));
  }

  /**
   * Every position ordered by one field: nulls last either way, ties by id ascending. Descending
   * orders are derived from the stored ascending one on first use (value groups reversed, each
   * group kept in id order).
   */
  async order(field: string, direction: 'asc' | 'desc'): Promise<Uint32Array> {
    const key = `${field}:${direction}`;
    const known = this.derived.get(key);
    if (known) return known;
    let order: Uint32Array;
    if (field === 'id') {
      order = Uint32Array.from({ length: this.count }, (_, i) => (direction === 'asc' ? i : this.count - 1 - i));
    } else {
      const asc = await this.u32(section.asc(this.name, field));
      if (direction === 'asc') return asc;
      const ranks = (await this.ranks(field))!;
      order = new Uint32Array(asc.length);
      let nonNull = 0;
      while (nonNull < asc.length && ranks[asc[nonNull]!] !== NULL_RANK) nonNull++;
      let out = 0;
      for (let end = nonNull; end > 0; ) {
        let start = end - 1;
        while (start > 0 && ranks[asc[start - 1]!] === ranks[asc[end - 1]!]) start--;
        order.set(asc.subarray(start, end), out);
        out += end - start;
        end = start;
      }
      order.set(asc.subarray(nonNull), out);
    }
    this.derived.set(key, order);
    return order;
  }

  /** Positions of the children of the parent at `parentAt` (ascending, so in id order). */
  async children(parent: string, parentAt: number): Promise<Uint32Array> {
    const [start, positions] = await Promise.all([this.u32(section.childStart(this.name, parent)), this.u32(section.children(this.name, parent))]);
    return positions.subarray(start[parentAt]!, start[parentAt + 1]!);
  }
}
