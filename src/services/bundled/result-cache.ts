import { LRUCache } from 'lru-cache';
import { entryBytes } from '../cache/entry-size';
import type { ListQuery, OrderTerm, ResourceName } from '../record-source';
import { NULL_RANK } from './compiled/layout';
import type { CompiledResource } from './compiled/resource';
import { searchPositions } from './compiled/search';

/**
 * Results kept at most, in bytes, keys and each entry's overhead counted: positions are 4 bytes
 * each, so this is a few thousand searches, or some 40,000 empty results of distinct searches.
 */
export const RESULT_CACHE_BYTES = 16 * 1024 * 1024;

export interface ScopeAt {
  parent: ResourceName;
  /** The parent record's position. */
  at: number;
}

/**
 * The ordered positions of every result a request asked for, computed once and kept (LRU by
 * size), so paging through a search or a sorted list slices a stored array. Unfiltered lists in
 * one field's order need no entry: the compiled orders are the result, read a window at a time. Results depend only on
 * public data and the query, never on the caller.
 */
export class ResultCache {
  private readonly cache: LRUCache<string, Uint32Array>;

  constructor(
    private readonly resources: Record<ResourceName, CompiledResource>,
    maxBytes = RESULT_CACHE_BYTES,
  ) {
    // Every distinct `q` is a key: counted with its key and overhead, an empty result is not free.
    this.cache = new LRUCache({ maxSize: maxBytes, sizeCalculation: (positions, key) => entryBytes(key, positions.byteLength) });
  }

  /** Entries and the bytes counted for them. */
  get stats(): { entries: number; bytes: number } {
    return { entries: this.cache.size, bytes: this.cache.calculatedSize };
  }

  async window(
    resource: ResourceName,
    query: Pick<ListQuery, 'q' | 'order'>,
    scope: ScopeAt | undefined,
    offset: number,
    limit: number,
  ): Promise<{ positions: Uint32Array; total: number }> {
    const compiled = this.resources[resource];
    if (query.q === undefined && !scope && query.order.length <= 1) {
      // The compiled orders are the result: read just the window of one.
      const [term] = query.order;
      return { positions: await compiled.orderWindow(term?.field ?? 'id', term?.direction ?? 'asc', offset, limit), total: compiled.count };
    }
    // A search's total and order come from the search index alone: its page's records are read after.
    const all = await this.result(resource, query.q, query.order, scope);
    return { positions: all.subarray(offset, offset + limit), total: all.length };
  }

  private async result(resource: ResourceName, q: string | undefined, order: OrderTerm[], scope: ScopeAt | undefined): Promise<Uint32Array> {
    const compiled = this.resources[resource];
    const key = JSON.stringify([resource, q ?? null, order.map((t) => [t.field, t.direction]), scope ? [scope.parent, scope.at] : null]);
    const cached = this.cache.get(key);
    if (cached) return cached;

    // The ranks a filtered result is sorted by are read with the filter's sections, in one round.
    const filtered = scope !== undefined || q !== undefined;
    const sorting = filtered && order.length > 0 ? comparator(compiled, order) : undefined;
    sorting?.catch(() => undefined);
    const [children, matches] = await Promise.all([
      scope && compiled.children(scope.parent, scope.at),
      q === undefined ? undefined : searchPositions(compiled, q),
    ]);
    const candidates = children && matches ? intersect(children, matches) : (children ?? matches);
    let result: Uint32Array;
    if (order.length === 0) result = candidates ?? (await compiled.order('id', 'asc'));
    else if (candidates) result = Uint32Array.from(candidates).sort(await sorting!);
    else result = await byTieGroups(compiled, order);
    this.cache.set(key, result);
    return result;
  }
}

/** Both ascending position lists' common members. */
function intersect(a: Uint32Array, b: Uint32Array): Uint32Array {
  const out: number[] = [];
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (a[i]! < b[j]!) i++;
    else if (a[i]! > b[j]!) j++;
    else {
      out.push(a[i]!);
      i++;
      j++;
    }
  }
  return Uint32Array.from(out);
}

/** Compares positions by `order`: nulls last in either direction, ties by id (position). */
async function comparator(compiled: CompiledResource, order: OrderTerm[]): Promise<(a: number, b: number) => number> {
  const keys = await Promise.all(order.map(async (t) => ({ ranks: await compiled.ranks(t.field), sign: t.direction === 'desc' ? -1 : 1 })));
  return (a, b) => {
    for (const { ranks, sign } of keys) {
      const ra = ranks ? ranks[a]! : a;
      const rb = ranks ? ranks[b]! : b;
      if (ra === rb) continue;
      if (ra === NULL_RANK) return 1;
      if (rb === NULL_RANK) return -1;
      return sign * (ra - rb);
    }
    return a - b;
  };
}

/** The whole resource in several fields' order: the first field's stored order, each tie group sorted by the rest. */
async function byTieGroups(compiled: CompiledResource, order: OrderTerm[]): Promise<Uint32Array> {
  const primary = await compiled.order(order[0]!.field, order[0]!.direction);
  const ranks = await compiled.ranks(order[0]!.field);
  const rest = await comparator(compiled, order.slice(1));
  const out = Uint32Array.from(primary);
  if (!ranks) return out; // ids are unique: no ties
  for (let start = 0; start < out.length; ) {
    let end = start + 1;
    while (end < out.length && ranks[out[end]!] === ranks[out[start]!]) end++;
    if (end - start > 1) out.subarray(start, end).sort(rest);
    start = end;
  }
  return out;
}
