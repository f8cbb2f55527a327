import type { Dataset } from '../../src/core/records';
import { resourceSpecs } from '../../src/services/bundled/compile/spec';
import { searchPositions } from '../../src/services/bundled/compiled/search';
import type { CompiledResource } from '../../src/services/bundled/compiled/resource';
import type { ResourceName } from '../../src/services/record-source';

/**
 * The oracle's own folding, from CONTRACT section 4 (case- and accent-insensitive). Printable ASCII
 * has nothing to decompose and no marks, so it is only lower-cased (most of the data: folding every
 * species' fields is the oracle's setup, run for each run of a test file).
 */
export const fold = (text: string) =>
  !/[^ -~]/.test(text)
    ? text.toLowerCase()
    : text
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
  // The same in id order, so that the matches of a needle are in id order as they are found: every
  // field of every record in one text, each after a U+0000 that neither a field nor a needle holds,
  // so that an occurrence of a needle lies within one field; `starts[i]` is where record i begins.
  const rank = new Map(idAt.map((id, at) => [id, at]));
  const inIdOrder = [...folded].sort((a, b) => rank.get(a.id)! - rank.get(b.id)!);
  const starts: number[] = [];
  let length = 0;
  const text = inIdOrder
    .map((r) => {
      starts.push(length);
      const part = r.fields.map((f) => `\u0000${f}`).join('');
      length += part.length;
      return part;
    })
    .join('');
  /** The record whose fields hold position `at` of `text`. */
  const recordAt = (at: number) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (starts[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };

  return {
    folded,
    withTwoFields: folded.filter((r) => r.fields.length >= 2),
    /** Every species id holding folded `q` within one field. */
    naive(q: string): string[] {
      const needle = fold(q);
      if (needle === '' || needle.includes('\u0000')) return inIdOrder.filter((r) => r.fields.some((f) => f.includes(needle))).map((r) => r.id);
      const ids: string[] = [];
      for (let at = text.indexOf(needle); at >= 0; ) {
        const i = recordAt(at);
        ids.push(inIdOrder[i]!.id);
        // On to the next record: this one is found.
        at = i + 1 < starts.length ? text.indexOf(needle, starts[i + 1]) : -1;
      }
      return ids;
    },
    /** The ids the compiled search index gives for `q`. */
    async compiled(q: string): Promise<string[]> {
      return Array.from(await searchPositions(species(), q), (at) => idAt[at]!);
    },
  };
}
