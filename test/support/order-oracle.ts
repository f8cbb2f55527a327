/** docs/reference/interface.md's order worked out naively: no code of the gateway's, so it can judge it. */

const textOrder = new Intl.Collator('en', { sensitivity: 'base' });
/** The default order: `id` ascending, numeric-aware. */
export const idOrder = new Intl.Collator('en', { numeric: true });

export type OrderTerms = Array<[field: string, dir: 'asc' | 'desc']>;

/**
 * Compares records by `terms`: text case- and accent-insensitively, numbers as numbers, `id`
 * numeric-aware, nulls last in either direction, ties by id ascending.
 */
export function contractOrder(terms: OrderTerms): (a: any, b: any) => number {
  return (a, b) => {
    for (const [field, dir] of terms) {
      const [x, y] = [a[field], b[field]];
      if (x === y || (x !== null && y !== null && typeof x === 'string' && textOrder.compare(x, y) === 0)) continue;
      if (x === null) return 1;
      if (y === null) return -1;
      return (typeof x === 'number' ? x - y : (field === 'id' ? idOrder : textOrder).compare(x, y)) * (dir === 'desc' ? -1 : 1);
    }
    return idOrder.compare(a.id, b.id);
  };
}
