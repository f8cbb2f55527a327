import { LRUCache } from 'lru-cache';
import { fold, idCollator, textCollator } from '../../core/text';
import type { OrderTerm } from '../record-source';

type SortValue = string | number | null;

/** How one resource's records are read for indexing. */
export interface IndexSpec<R> {
  id(record: R): string;
  sortable: Record<string, (record: R) => SortValue>;
  /** Texts `q` matches as a substring (after folding). */
  searchable(record: R): Array<string | null>;
  /** Parent ids a child list can be scoped by, e.g. `genus: r => r.genus_id`. */
  parents: Record<string, (record: R) => string | null>;
}

export interface Window<R> {
  items: R[];
  total: number;
}

const NULL_RANK = 0x7fffffff;
const FIELD_SEPARATOR = '\u0000';

/**
 * One resource's records with every index built once, at start-up:
 * records kept in default (numeric-aware id) order, so a record's position is also its id rank;
 * per sortable field a dense value rank and the full asc and desc orders; per parent the child
 * positions; and one folded search text per record. A request then walks one precomputed array.
 */
export class ResourceIndex<R> {
  readonly records: R[];
  private readonly byId = new Map<string, number>();
  private readonly searchText: string[];
  private readonly ranks = new Map<string, Int32Array>();
  private readonly orders = new Map<string, Int32Array>();
  private readonly children = new Map<string, Map<string, Int32Array>>();
  private readonly matches = new LRUCache<string, Uint8Array>({ max: 256 });
  private readonly identity: Int32Array;

  constructor(records: readonly R[], private readonly spec: IndexSpec<R>) {
    this.records = [...records].sort((a, b) => idCollator.compare(spec.id(a), spec.id(b)));
    this.records.forEach((record, i) => this.byId.set(spec.id(record), i));
    this.identity = Int32Array.from(this.records.keys());
    this.searchText = this.records.map((r) =>
      spec.searchable(r).filter((t): t is string => !!t).map(fold).join(FIELD_SEPARATOR),
    );
    for (const [field, read] of Object.entries(spec.sortable)) {
      this.ranks.set(field, this.denseRanks(field === 'id' ? null : read));
      for (const direction of ['asc', 'desc'] as const) {
        const order = Int32Array.from(this.identity);
        order.sort(this.comparator([{ field, direction }]));
        this.orders.set(`${field}:${direction}`, order);
      }
    }
    for (const [parent, read] of Object.entries(spec.parents)) {
      const groups = new Map<string, number[]>();
      this.records.forEach((record, i) => {
        const key = read(record);
        if (key !== null) (groups.get(key) ?? groups.set(key, []).get(key)!).push(i);
      });
      this.children.set(parent, new Map([...groups].map(([k, v]) => [k, Int32Array.from(v)])));
    }
  }

  get size(): number {
    return this.records.length;
  }

  get(id: string): R | undefined {
    const i = this.byId.get(id);
    return i === undefined ? undefined : this.records[i];
  }

  /** Number of children a parent has (0 when it has none or does not exist). */
  childCount(parent: string, id: string): number {
    return this.children.get(parent)?.get(id)?.length ?? 0;
  }

  /**
   * Records `[offset, offset + limit)` of the result of `q`, `order` and `scope`, with its total.
   * Costs one pass over a precomputed array (the scope's children, or one field order), plus a
   * sort of the tie groups that overlap the window when several fields are ordered.
   */
  window(q: string | undefined, order: OrderTerm[], scope: { parent: string; id: string } | undefined, offset: number, limit: number): Window<R> {
    const mask = q ? this.matchMask(fold(q)) : undefined;
    let candidates: Int32Array;
    if (scope) {
      candidates = this.children.get(scope.parent)?.get(scope.id) ?? new Int32Array(0);
      if (order.length > 0) candidates = Int32Array.from(candidates).sort(this.comparator(order));
      return this.collect(candidates, mask, offset, limit, undefined);
    }
    if (order.length === 0) {
      if (!mask) return { items: this.records.slice(offset, offset + limit), total: this.records.length };
      candidates = this.identity;
    } else {
      candidates = this.orders.get(`${order[0]!.field}:${order[0]!.direction}`)!;
    }
    return this.collect(candidates, mask, offset, limit, order.length > 1 ? order : undefined);
  }

  private collect(candidates: Int32Array, mask: Uint8Array | undefined, offset: number, limit: number, order: OrderTerm[] | undefined): Window<R> {
    const end = offset + limit;
    const picked: number[] = [];
    let total = 0;
    if (!order) {
      for (const i of candidates) {
        if (mask && !mask[i]) continue;
        if (total >= offset && total < end) picked.push(i);
        total++;
      }
      return { items: picked.map((i) => this.records[i]!), total };
    }
    // Several fields: the candidates are ordered by the first; sort each tie group that the
    // window touches by the rest.
    const primary = this.ranks.get(order[0]!.field)!;
    const rest = this.comparator(order.slice(1));
    let group: number[] = [];
    let groupStart = 0;
    const flush = () => {
      if (group.length > 0 && groupStart < end && groupStart + group.length > offset) {
        if (group.length > 1) group.sort(rest);
        picked.push(...group.slice(Math.max(0, offset - groupStart), end - groupStart));
      }
      group = [];
    };
    for (const i of candidates) {
      if (mask && !mask[i]) continue;
      if (group.length > 0 && primary[group[0]!] !== primary[i]) flush();
      if (group.length === 0) groupStart = total;
      group.push(i);
      total++;
    }
    flush();
    return { items: picked.map((i) => this.records[i]!), total };
  }

  /** Which records match folded `q`; cached, so paging through one search scans once. */
  private matchMask(needle: string): Uint8Array {
    let mask = this.matches.get(needle);
    if (!mask) {
      mask = new Uint8Array(this.records.length);
      for (let i = 0; i < mask.length; i++) if (this.searchText[i]!.includes(needle)) mask[i] = 1;
      this.matches.set(needle, mask);
    }
    return mask;
  }

  /** Dense rank of each record's value (equal values share a rank; nulls rank last). */
  private denseRanks(read: ((record: R) => SortValue) | null): Int32Array {
    const ranks = new Int32Array(this.records.length);
    if (!read) {
      ranks.forEach((_, i) => (ranks[i] = i));
      return ranks;
    }
    const values = this.records.map(read);
    const present = [...values.keys()].filter((i) => values[i] !== null);
    const compare = (a: SortValue, b: SortValue) =>
      typeof a === 'number' && typeof b === 'number' ? a - b : textCollator.compare(String(a), String(b));
    present.sort((a, b) => compare(values[a]!, values[b]!));
    ranks.fill(NULL_RANK);
    let rank = 0;
    present.forEach((i, k) => {
      if (k > 0 && compare(values[present[k - 1]!]!, values[i]!) !== 0) rank++;
      ranks[i] = rank;
    });
    return ranks;
  }

  /** Compares record positions by `order`: nulls last in either direction, ties by id. */
  private comparator(order: OrderTerm[]): (a: number, b: number) => number {
    const keys = order.map((t) => ({ ranks: this.ranks.get(t.field)!, sign: t.direction === 'desc' ? -1 : 1 }));
    return (a, b) => {
      for (const { ranks, sign } of keys) {
        const ra = ranks[a]!;
        const rb = ranks[b]!;
        if (ra === rb) continue;
        if (ra === NULL_RANK) return 1;
        if (rb === NULL_RANK) return -1;
        return sign * (ra - rb);
      }
      return a - b;
    };
  }
}
