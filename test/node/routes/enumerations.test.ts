/**
 * Child lists of two parents asked for in turn from one gateway (one record source, one store of
 * kept results): each parent's list holds its own children only, whatever was listed before with
 * the same search and order. The expectation comes from another path through the gateway: the
 * unscoped list with the same search and order, kept to the records that name the parent.
 */
import { describe, expect, it } from 'vitest';
import { dataset, testApp, walkPages } from '../../support/harness';

const ids = (pages: Array<{ data: Array<{ id: string }> }>) => pages.flatMap((p) => p.data.map((r) => r.id));

describe('scoped lists of two parents in turn, same search and order', () => {
  const familyOf = new Map(dataset.genus.map((g) => [g.id, g.family_id]));
  const QUERIES = ['', 'q=ce', 'order[name]=desc', 'q=ce&order[common_name]=asc&order[name]=desc', 'order[slug]=asc&order[id]=desc'];

  it.each(QUERIES)('/v2/families/{Asteraceae, Pinaceae, Asteraceae}/genus?%s answer each family its own genera', async (query) => {
    const t = testApp();
    const suffix = query ? `?${query}` : '';
    const everywhere = ids(await walkPages(t, `/v2/genus${suffix}`));
    for (const family of ['Asteraceae', 'Pinaceae', 'Asteraceae']) {
      const pages = await walkPages(t, `/v2/families/${family}/genus${suffix}`);
      const expected = everywhere.filter((id) => familyOf.get(id) === family);
      expect(expected.length, 'the query finds genera of this family').toBeGreaterThan(0);
      expect(ids(pages), `${family}${suffix}`).toEqual(expected);
      expect(pages[0].meta.total, `${family}${suffix}`).toBe(expected.length);
    }
  });

  it('species of two genera in turn, by search and order', async () => {
    const t = testApp();
    const bySpecies = new Map(dataset.species.map((s) => [s.id, s]));
    const suffix = '?q=ab&order[year]=desc';
    const everywhere = ids(await walkPages(t, `/v2/species${suffix}`));
    for (const [parent, id, field] of [
      ['genus', 'Abies', 'genus_id'],
      ['genus', 'Carex', 'genus_id'],
      ['genus', 'Abies', 'genus_id'],
    ] as const) {
      const expected = everywhere.filter((s) => bySpecies.get(s)![field] === id);
      expect(expected.length).toBeGreaterThan(0);
      expect(ids(await walkPages(t, `/v2/${parent}/${id}/species${suffix}`)), `${parent}/${id}`).toEqual(expected);
    }
  });
});
