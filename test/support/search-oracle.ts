import type { Dataset } from '../../src/core/records';
import { resourceSpecs } from '../../src/services/bundled/compile/spec';
import { searchPositions } from '../../src/services/bundled/compiled/search';
import type { CompiledResource } from '../../src/services/bundled/compiled/resource';
import type { ResourceName } from '../../src/services/record-source';

/** The oracle's own folding, from CONTRACT section 4 (case- and accent-insensitive). */
export const fold = (text: string) =>
  text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();

/**
 * The species search of CONTRACT section 18 worked out naively over `dataset` (each searchable
 * field folded on its own, a match within one field), and the ids the compiled search index of
 * `species()` gives for the same `q`, both in id order.
 */
export function speciesSearch(dataset: Dataset, species: () => CompiledResource) {
  const fieldsOf = (resource: ResourceName, record: unknown) =>
    resourceSpecs(dataset)
      [resource].searchable(record as never)
      .filter((f): f is string => !!f)
      .map(fold);

  const idOrder = new Intl.Collator('en', { numeric: true });
  const byIdOrder = (ids: string[]) => [...ids].sort(idOrder.compare);
  // Each species' folded fields, each on its own (folded once: the oracle runs hundreds of times).
  const folded = dataset.species.map((r) => ({ id: r.id, fields: fieldsOf('species', r) }));
  // A record's position in the compiled dataset is its rank in id order.
  const idAt = byIdOrder(dataset.species.map((r) => r.id));

  return {
    folded,
    withTwoFields: folded.filter((r) => r.fields.length >= 2),
    /** Every species id holding folded `q` within one field. */
    naive(q: string): string[] {
      const needle = fold(q);
      return byIdOrder(folded.filter((r) => r.fields.some((f) => f.includes(needle))).map((r) => r.id));
    },
    /** The ids the compiled search index gives for `q`. */
    async compiled(q: string): Promise<string[]> {
      return Array.from(await searchPositions(species(), q), (at) => idAt[at]!);
    },
  };
}
