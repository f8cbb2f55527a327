import { readFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import type { Dataset, SpeciesRecord } from '../../../src/core/records.js';

const text = readFileSync(new URL('../../../fixtures/taxa.json', import.meta.url), 'utf8');
const data = JSON.parse(text) as Dataset;
const species = new Map(data.species.map((s) => [s.id, s]));

function sp(id: string): SpeciesRecord {
  const s = species.get(id);
  if (!s) throw new Error(`species ${id} missing from fixture`);
  return s;
}

const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const count = <T>(xs: T[], f: (x: T) => boolean): number => xs.filter(f).length;

describe('fixtures/taxa.json: file format', () => {
  it('is valid JSON with one record per line', () => {
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^\{"dataset":\{"last_modified":.*\},$/);
    expect(text.endsWith('}}\n')).toBe(true);
    expect(lines.filter((l) => l.startsWith('{"id":')).length).toBe(data.families.length + data.genus.length + data.species.length + data.plants.length);
  });

  it('has the dataset header', () => {
    expect(data.dataset.last_modified).toBe('2026-03-18T00:00:00Z');
    expect(data.dataset.sources.map((s) => s.key)).toEqual(['usda', 'vascan']);
    expect(data.dataset.sources[1]).toMatchObject({ license: 'CC BY 2.0', url: 'https://doi.org/10.1186/1746-4269-8-7' });
  });

  it('sorts every array by id (plain string order)', () => {
    for (const list of [data.families, data.genus, data.species, data.plants]) {
      const ids = list.map((r) => r.id);
      expect(ids).toEqual([...ids].sort(byString));
      expect(new Set(ids).size).toBe(ids.length);
    }
    const keys = Object.keys(data.species_sources);
    expect(keys).toEqual([...keys].sort(byString));
  });
});

describe('fixtures/taxa.json: counts (data README)', () => {
  it('keeps all 32,800 accepted taxa with USDA ranks', () => {
    expect(data.species.length).toBe(32800);
    expect(count(data.species, (s) => s.rank === 'species')).toBe(24552);
    expect(count(data.species, (s) => s.rank === 'var')).toBe(5457);
    expect(count(data.species, (s) => s.rank === 'subsp')).toBe(2787);
    expect(count(data.species, (s) => s.rank === 'f')).toBe(4);
    expect(data.species.every((s) => s.status === 'accepted')).toBe(true);
  });

  it('has 361 families (155 named), 3,731 genera and one plant per species-rank taxon', () => {
    expect(data.families.length).toBe(361);
    expect(count(data.families, (f) => f.common_name !== null)).toBe(155);
    expect(count(data.species, (s) => s.family_common_name !== null)).toBe(30708);
    expect(data.genus.length).toBe(3731);
    expect(count(data.genus, (g) => g.common_name !== null)).toBe(636);
    expect(data.plants.length).toBe(24552);
  });

  it('has names, durations, synonyms and traits where the README says', () => {
    expect(count(data.species, (s) => s.common_name !== null)).toBe(32585);
    expect(count(data.species, (s) => s.duration !== null)).toBe(32396);
    expect(count(data.species, (s) => s.synonyms.length > 0)).toBe(14472);
    expect(count(data.species, (s) => s.flower.conspicuous !== null)).toBe(2162);
    expect(count(data.species, (s) => s.growth_rate !== null)).toBe(2085);
    expect(count(data.species, (s) => s.flower.color !== null)).toBe(2091);
    expect(count(data.species, (s) => s.foliage.color !== null)).toBe(2147);
    expect(count(data.species, (s) => s.fruit_or_seed.color !== null)).toBe(2055);
  });

  it('attaches VASCAN names to 489 taxa (480 direct + 10 via synonym, two share ACMIO)', () => {
    expect(Object.keys(data.species_sources).length).toBe(489);
    expect(Object.values(data.species_sources).every((v) => v.length === 1 && v[0] === 'vascan')).toBe(true);
    expect(count(data.species, (s) => Object.keys(s.common_names).some((k) => k !== 'en'))).toBe(486);
    const langs = new Set(data.species.flatMap((s) => Object.keys(s.common_names)));
    expect([...langs].sort()).toEqual(['aaq', 'alg', 'alq', 'atj', 'chp', 'ciw', 'cr', 'en', 'fr', 'mic', 'moe', 'oj', 'pgm'].sort());
  });
});

describe('fixtures/taxa.json: integrity', () => {
  it('has unique slugs and canonical names without author fragments', () => {
    const slugs = data.species.map((s) => s.slug);
    expect(new Set(slugs).size).toBe(slugs.length);
    const badSlug = data.species.filter((s) => !/^[a-z0-9]+(-[a-z0-9]+)*$/.test(s.slug)).map((s) => s.id);
    expect(badSlug).toEqual([]);
    // genus, then only epithets, rank markers and hybrid signs
    const token = /^(×?[a-zà-ÿ][a-zà-ÿ.'-]*|var\.|ssp\.|f\.|×)$/;
    const badName = data.species
      .filter((s) => {
        const [genus, ...rest] = s.scientific_name.split(' ');
        return genus !== s.genus || !rest.every((t) => token.test(t)) || /[()[\]&,]/.test(s.scientific_name);
      })
      .map((s) => `${s.id} ${s.scientific_name}`);
    expect(badName).toEqual([]);
  });

  it('links plants, genera and families', () => {
    const plantIds = new Set(data.plants.map((p) => p.id));
    const genera = new Map(data.genus.map((g) => [g.id, g]));
    const families = new Set(data.families.map((f) => f.id));
    const bad = data.species
      .filter(
        (s) =>
          s.plant_id === null ||
          !plantIds.has(s.plant_id) ||
          (s.rank === 'species' ? s.plant_id !== s.id : sp(s.plant_id).rank !== 'species') ||
          genera.get(s.genus_id)?.family_id !== s.family_id ||
          !families.has(s.family_id) ||
          s.bibliography !== null ||
          s.year !== null,
      )
      .map((s) => s.id);
    expect(bad).toEqual([]);
    const badPlants = data.plants.filter((p) => p.main_species_id !== p.id || p.slug !== sp(p.id).slug);
    expect(badPlants).toEqual([]);
  });
});

describe('fixtures/taxa.json: known records', () => {
  it('Abies balsamea: names in 8 languages, traits, plant', () => {
    const s = sp('ABBA');
    expect(s).toMatchObject({
      slug: 'abies-balsamea',
      scientific_name: 'Abies balsamea',
      author: '(L.) Mill.',
      rank: 'species',
      common_name: 'balsam fir',
      duration: ['perennial'],
      genus_id: 'Abies',
      family_id: 'Pinaceae',
      family_common_name: 'Pine family',
      plant_id: 'ABBA',
      flower: { color: ['YELLOW'], conspicuous: false },
      foliage: { color: ['GREEN'], texture: 'medium' },
      fruit_or_seed: { color: ['BROWN'], conspicuous: false },
      growth_rate: 'SLOW',
    });
    // "balsam fir" from VASCAN is a duplicate of the USDA name
    expect(s.common_names.en).toEqual(['balsam fir']);
    expect(s.common_names.fr).toEqual(['sapin baumier']);
    expect(s.common_names.cr?.slice(0, 2)).toEqual(['pikew-ahtik', 'nupukasik']);
    expect(Object.keys(s.common_names)).toEqual(['en', 'aaq', 'atj', 'cr', 'fr', 'moe', 'oj', 'pgm']);
    expect(data.species_sources.ABBA).toEqual(['vascan']);
  });

  it('splits authors: infraspecific authority, autonym falls back to the species authority', () => {
    expect(sp('EQHYA')).toMatchObject({
      scientific_name: 'Equisetum hyemale var. affine',
      author: '(Engelm.) A.A. Eaton',
      rank: 'var',
      plant_id: 'EQHY',
    });
    expect(sp('ABLAL')).toMatchObject({
      scientific_name: 'Abies lasiocarpa var. lasiocarpa',
      slug: 'abies-lasiocarpa-var-lasiocarpa',
      author: '(Hook.) Nutt.',
      plant_id: 'ABLA',
    });
    expect(sp('ABLAL').synonyms[0]).toBe('Abies balsamea (L.) Mill. ssp. lasiocarpa (Hook.) B. Boivin');
    // "f." after an author is filius, not the rank "forma"
    expect(sp('CAHEH2')).toMatchObject({ scientific_name: 'Carex heleonastes ssp. heleonastes', author: 'L. f.' });
    expect(sp('DAARK')).toMatchObject({ scientific_name: 'Dactylorhiza aristata var. kodiakensis', author: 'Luer & Luer f.' });
    expect(sp('RUPAG2')).toMatchObject({ scientific_name: 'Rumex paucifolius ssp. gracilescens', author: '(Rech. f.) Rech. f.' });
    expect(sp('CAHIS2')).toMatchObject({ scientific_name: 'Canarium hirsutum f. scabrum', rank: 'f', author: '(Blume) Leenh.' });
    // "orth. var." is an annotation, not a variety
    expect(sp('BRRUC2')).toMatchObject({ scientific_name: 'Brachypodium rupestre ssp. caespitosum', rank: 'subsp' });
    // no infraspecific authority and not an autonym → null
    expect(sp('ARLIM').author).toBeNull();
  });

  it('keeps the full rank chain of quadrinomials', () => {
    expect(sp('CAVIE')).toMatchObject({
      scientific_name: 'Carex viridula ssp. brachyrrhyncha var. elatior',
      author: '(Schltdl.) Crins',
      plant_id: 'CAVI5',
    });
    expect(sp('CLVIL')).toMatchObject({ scientific_name: 'Claytonia virginica var. virginica f. lutea', author: 'R.J. Davis', rank: 'f' });
  });

  it('handles hybrids', () => {
    expect(sp('EQFE')).toMatchObject({
      scientific_name: 'Equisetum ×ferrissii',
      slug: 'equisetum-xferrissii',
      author: 'Clute (pro sp.)',
    });
    expect(sp('ARTRB3')).toMatchObject({
      scientific_name: 'Artemisia tridentata ssp. ×bonnevillensis',
      author: 'H. Garrison, L. Schultz, & E.D. McArthur',
      plant_id: 'ARTR2',
    });
    // unnamed hybrid formula is the name; no author
    expect(sp('PIRI2')).toMatchObject({ scientific_name: 'Pinus rigida × serotina', slug: 'pinus-rigida-x-serotina', author: null });
    // parentage written without brackets is dropped from the author
    expect(sp('SABE10')).toMatchObject({ scientific_name: 'Sarracenia ×bellii', author: 'Mellich.' });
    // intergeneric hybrid: the genus column holds "Hordeum ? Leymus"; the nothogenus is used
    expect(sp('LEPI15')).toMatchObject({ scientific_name: '×Leydeum piperi', genus_id: '×Leydeum', slug: 'xleydeum-piperi' });
    expect(data.genus.find((g) => g.id === '×Leydeum')).toMatchObject({ slug: 'xleydeum', family_id: 'Poaceae' });
    expect(data.genus.find((g) => g.id === '×Calammophila')?.common_name).toBe('calammophila');
  });

  it('resolves the Hypolytrum nemorum name clash in favour of the correctly applied name', () => {
    expect(sp('HYNE4').slug).toBe('hypolytrum-nemorum');
    expect(sp('HYNE3')).toMatchObject({ slug: 'hypolytrum-nemorum-hyne3', author: 'sensu Parham, non Spreng.' });
    expect(sp('HYNEV').plant_id).toBe('HYNE4');
  });

  it('cleans the two broken USDA author strings', () => {
    expect(sp('GABR').author).toBeNull();
    expect(sp('RHAS').author).toBe('(Small) Greene (pro sp.)');
  });

  it('maps traits, durations and empty values', () => {
    expect(sp('ACNE2')).toMatchObject({
      common_name: 'boxelder',
      flower: { color: ['WHITE'], conspicuous: false },
      foliage: { color: ['GREEN'], texture: 'coarse' },
      fruit_or_seed: { color: ['BROWN'], conspicuous: true },
      growth_rate: 'RAPID',
      family_common_name: 'Maple family',
    });
    expect(sp('ACNE2').common_names).toMatchObject({ en: ['boxelder', 'box elder'], oj: ["adjagobi'mûk"] });
    expect(sp('ABAM').foliage.color).toEqual(['GRAY-GREEN']);
    expect(sp('ABFR').foliage.color).toEqual(['DARK GREEN']);
    expect(sp('ALPI2').duration).toEqual(['annual', 'biennial', 'perennial']);
    expect(sp('ECTE5')).toMatchObject({
      author: '(Zahlbr.) Lücking',
      duration: null,
      common_names: { en: ['echinoplaca lichen'] },
      synonyms: [],
      flower: { color: null, conspicuous: null },
      foliage: { color: null, texture: null },
      fruit_or_seed: { color: null, conspicuous: null },
      growth_rate: null,
      family_common_name: null,
    });
    expect(sp('HYNE3')).toMatchObject({ common_name: null, common_names: {}, duration: null });
  });

  it('matches VASCAN taxa through USDA synonyms', () => {
    // VASCAN "Chenopodium ambrosioides L." is a USDA synonym of Dysphania ambrosioides
    expect(data.species_sources.DYAM).toEqual(['vascan']);
    expect(sp('DYAM').common_names.fr).toBeDefined();
    // "Achillea millefolium var. occidentalis" (direct) and "... ssp. lanulosa var. lanulosa" (synonym) merge
    expect(sp('ACMIO').common_names.en).toEqual(['western yarrow', 'boreal yarrow', 'Siberian yarrow']);
    // a hybrid formula must not take the names of its parent species
    expect(data.species_sources.VIPR).toEqual(['vascan']);
    expect(data.species_sources.VIPR2).toBeUndefined();
  });

  it('builds family, genus and plant records', () => {
    expect(data.families.find((f) => f.id === 'Rosaceae')).toEqual({
      id: 'Rosaceae',
      slug: 'rosaceae',
      name: 'Rosaceae',
      common_name: 'Rose family',
    });
    expect(data.genus.find((g) => g.id === 'Abies')).toEqual({
      id: 'Abies',
      slug: 'abies',
      name: 'Abies',
      common_name: 'fir',
      family_id: 'Pinaceae',
      family: 'Pinaceae',
    });
    expect(data.plants.find((p) => p.id === 'ABLA')).toEqual({
      id: 'ABLA',
      slug: 'abies-lasiocarpa',
      scientific_name: 'Abies lasiocarpa',
      common_name: 'subalpine fir',
      genus_id: 'Abies',
      family_id: 'Pinaceae',
      main_species_id: 'ABLA',
    });
    // README pagination checks: 14 families with > 40 genera (Asteraceae 459); Carex has 566 species
    expect(data.genus.filter((g) => g.family_id === 'Asteraceae').length).toBe(459);
    const generaPerFamily = new Map<string, number>();
    for (const g of data.genus) generaPerFamily.set(g.family_id, (generaPerFamily.get(g.family_id) ?? 0) + 1);
    expect([...generaPerFamily.values()].filter((n) => n > 40).length).toBe(14);
    expect(count(data.plants, (p) => p.genus_id === 'Carex')).toBe(566);
  });
});
