import type { Dataset } from '../../src/core/records';
import { searchPositions } from '../../src/services/bundled/compiled/search';
import type { CompiledResource } from '../../src/services/bundled/compiled/resource';
import type { AnyRecord, ResourceName } from '../../src/services/record-source';

/**
 * The oracle's own folding, from docs/reference/interface.md (case- and accent-insensitive). Printable ASCII
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
 * The texts `q` is matched in, each on its own (docs/reference/interface.md for species; the names of
 * section 3 for the others), written here rather than taken from the compiler's specification, so
 * a field it dropped would show.
 */
export function searchableFields(resource: ResourceName, record: any): string[] {
  const texts: Array<string | null> =
    resource === 'species'
      ? [record.scientific_name, record.common_name, ...Object.values<string[]>(record.common_names).flat(), ...record.synonyms]
      : resource === 'plants'
        ? [record.scientific_name, record.common_name]
        : [record.name, record.common_name];
  return texts.filter((t): t is string => !!t);
}

/**
 * The search of docs/reference/interface.md and docs/reference/requests.md worked out naively over `records` of `resource` (each
 * searchable field folded on its own, a match within one field): `naive(q)` is the ids of the
 * matches in id order.
 */
export function naiveSearch(records: readonly AnyRecord[], resource: ResourceName) {
  const idOrder = new Intl.Collator('en', { numeric: true });
  const byIdOrder = (ids: string[]) => [...ids].sort(idOrder.compare);
  // Each record's folded fields, each on its own (folded once: the oracle runs hundreds of times).
  const folded = records.map((r) => ({ id: r.id, fields: searchableFields(resource, r).map(fold) }));
  // A record's position in the compiled dataset is its rank in id order.
  const idAt = byIdOrder(records.map((r) => r.id));
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
    idAt,
    withTwoFields: folded.filter((r) => r.fields.length >= 2),
    /** Every id holding folded `q` within one field. */
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
  };
}

/**
 * The species search of docs/reference/requests.md worked out naively over `dataset` (`naiveSearch`), and
 * the ids the compiled search index of `species()` gives for the same `q`, both in id order.
 */
export function speciesSearch(dataset: Dataset, species: () => CompiledResource) {
  const oracle = naiveSearch(dataset.species, 'species');
  return {
    ...oracle,
    /** The ids the compiled search index gives for `q`. */
    async compiled(q: string): Promise<string[]> {
      return Array.from(await searchPositions(species(), q), (at) => oracle.idAt[at]!);
    },
  };
}
