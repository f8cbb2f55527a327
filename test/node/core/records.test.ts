import { describe, expect, it } from 'vitest';
import type { SpeciesRecord } from '../../../src/core/records';
import type { OrderTerm, RecordSource } from '../../../src/services/record-source';
import { bundledSource, dataset } from '../../support/harness';

// The oracle's own text rules, written from docs/reference/interface.md rather than imported from the code
// under test: case- and accent-insensitive matching and order, ids numeric-aware.
const fold = (text: string) =>
  text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
const textCollator = new Intl.Collator('en', { sensitivity: 'base' });
const idCollator = new Intl.Collator('en', { numeric: true });

/** The naive answer: filter and fully sort the whole dataset, as no request may do. */
function naive(q: string | undefined, order: OrderTerm[], filter: (s: SpeciesRecord) => boolean = () => true): string[] {
  const needle = q ? fold(q) : undefined;
  const matches = dataset.species.filter((s) => {
    if (!filter(s)) return false;
    if (!needle) return true;
    const texts = [s.scientific_name, s.common_name, ...Object.values(s.common_names).flat(), ...s.synonyms];
    return texts.some((t) => t !== null && fold(t).includes(needle));
  });
  const value = (s: SpeciesRecord, field: string) => (s as unknown as Record<string, string | number | null>)[field] ?? null;
  return matches
    .sort((a, b) => {
      for (const { field, direction } of order) {
        const [x, y] = [value(a, field), value(b, field)];
        if (x === null && y === null) continue;
        if (x === null) return 1;
        if (y === null) return -1;
        const c =
          field === 'id' ? idCollator.compare(String(x), String(y)) : typeof x === 'number' ? x - (y as number) : textCollator.compare(String(x), String(y));
        if (c !== 0) return direction === 'desc' ? -c : c;
      }
      return idCollator.compare(a.id, b.id);
    })
    .map((s) => s.id);
}

async function allPages(q: string | undefined, order: OrderTerm[], scope?: { parent: 'genus' | 'plants'; id: string }): Promise<string[]> {
  const source: RecordSource = bundledSource();
  const ids: string[] = [];
  for (let page = 1; ; page++) {
    const result = (await source.list('species', { q, order, page }, scope, { requestId: 'test' }))!;
    ids.push(...result.items.map((r) => r.id));
    if (page * result.perPage >= result.total) return ids;
  }
}

const orders: OrderTerm[][] = [
  [],
  [{ field: 'scientific_name', direction: 'desc' }],
  [{ field: 'common_name', direction: 'asc' }],
  [
    { field: 'common_name', direction: 'desc' },
    { field: 'slug', direction: 'asc' },
  ],
  [
    { field: 'year', direction: 'asc' },
    { field: 'common_name', direction: 'desc' },
    { field: 'id', direction: 'desc' },
  ],
  [{ field: 'id', direction: 'desc' }],
];

describe('the bundled indexes give exactly the naive full-sort answer', () => {
  it.each(orders.flatMap((order) => ['rose', 'érable', 'SEDGE'].map((q) => [q, order] as const)))('q=%s order=%j', async (q, order) => {
    expect(await allPages(q, [...order])).toEqual(naive(q, [...order]));
  });

  it.each(orders.map((o) => [o] as const))('within the species of genus Carex, order=%j', async (order) => {
    expect(await allPages(undefined, [...order], { parent: 'genus', id: 'Carex' })).toEqual(naive(undefined, [...order], (s) => s.genus_id === 'Carex'));
  });

  it('pages of the whole unfiltered dataset ordered by common_name match the naive sort', async () => {
    const order: OrderTerm[] = [
      { field: 'common_name', direction: 'asc' },
      { field: 'scientific_name', direction: 'desc' },
    ];
    const expected = naive(undefined, order);
    const source: RecordSource = bundledSource();
    for (const page of [1, 2, 800, 1630, 1640]) {
      const result = (await source.list('species', { q: undefined, order, page }, undefined, { requestId: 't' }))!;
      expect(
        result.items.map((r) => r.id),
        `page ${page}`,
      ).toEqual(expected.slice((page - 1) * 20, page * 20));
    }
  });

  it('ties accented and plain spellings (parásita, parasita) and breaks the tie by id', async () => {
    const ids = await allPages('parasita', [{ field: 'common_name', direction: 'asc' }]);
    expect(ids).toEqual(['TIPO2', 'VRMA']);
    expect(await allPages('parasita', [{ field: 'common_name', direction: 'desc' }])).toEqual(['TIPO2', 'VRMA']);
    expect(naive('PARÁSITA', [{ field: 'common_name', direction: 'asc' }])).toEqual(['TIPO2', 'VRMA']);
  });
});
