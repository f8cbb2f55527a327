import { textCollator } from '../../../core/text';
import type { AnyRecord, ResourceName } from '../../record-source';
import { NULL_RANK } from '../compiled/layout';

type SortValue = string | number | null;

/** One sortable field: each record's dense rank (equal values share one; nulls `NULL_RANK`) and both orders. */
export interface BuiltOrder {
  ranks: Uint32Array;
  asc: Uint32Array;
  desc: Uint32Array;
}

/**
 * Stage 3a: the order of every sortable field, computed once with one collator, so every runtime
 * orders identically. `id` needs none: record positions are already in id order.
 */
export function buildOrders(records: readonly AnyRecord[], sortable: readonly string[]): Record<string, BuiltOrder> {
  const out: Record<string, BuiltOrder> = {};
  for (const field of sortable) {
    if (field === 'id') continue;
    const values = records.map((r) => (r as unknown as Record<string, SortValue>)[field] ?? null);
    const compare = (a: SortValue, b: SortValue) => (typeof a === 'number' && typeof b === 'number' ? a - b : textCollator.compare(String(a), String(b)));
    const present = [...values.keys()].filter((i) => values[i] !== null);
    // Ties by position, which is id order (Array#sort is stable).
    present.sort((a, b) => compare(values[a]!, values[b]!));
    const ranks = new Uint32Array(records.length).fill(NULL_RANK);
    let rank = 0;
    present.forEach((i, k) => {
      if (k > 0 && compare(values[present[k - 1]!]!, values[i]!) !== 0) rank++;
      ranks[i] = rank;
    });
    const nulls = [...values.keys()].filter((i) => values[i] === null);
    // Descending: value groups reversed, each group still in id order; nulls last here too.
    const desc = [...present].sort((a, b) => ranks[b]! - ranks[a]! || a - b);
    out[field] = { ranks, asc: Uint32Array.from([...present, ...nulls]), desc: Uint32Array.from([...desc, ...nulls]) };
  }
  return out;
}

/** A parent's children: positions grouped by parent position; parent `p` owns `positions[start[p]..start[p+1]]`. */
export interface BuiltChildren {
  start: Uint32Array;
  positions: Uint32Array;
}

/** Stage 3b: the child lists of every scope (`/genus/{id}/species`, ...), by the parent's position. */
export function buildChildren(
  records: readonly AnyRecord[],
  parentOf: (r: AnyRecord) => string | null,
  parentIds: readonly string[],
  parent: ResourceName,
): BuiltChildren {
  const parentAt = new Map(parentIds.map((id, i) => [id, i]));
  const groups: number[][] = parentIds.map(() => []);
  records.forEach((record, i) => {
    const id = parentOf(record);
    if (id === null) return;
    const p = parentAt.get(id);
    if (p === undefined) throw new Error(`${record.id} names ${parent} "${id}", which does not exist`);
    groups[p]!.push(i);
  });
  const start = new Uint32Array(parentIds.length + 1);
  groups.forEach((g, p) => {
    start[p + 1] = start[p]! + g.length;
  });
  return { start, positions: Uint32Array.from(groups.flat()) };
}
