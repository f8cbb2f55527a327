import type { FamilyRecord, GenusRecord, PlantRecord, SpeciesRecord } from '../../src/core/records';
import { nonEmpty, type Table } from './csv';
import { slugify } from './names';
import { byString } from './order';
import type { Taxon } from './taxa';

/** USDA common names of families and genera, by name. */
export interface HigherCommonNames {
  family: Map<string, string>;
  genus: Map<string, string>;
}

/** Stage 3d: the Family and Genus rows of `usda_higher_taxa.csv`, keyed by the first word of the name. */
export function higherCommonNames(higherTaxa: Table): HigherCommonNames {
  const familyCommon = new Map<string, string>();
  const genusCommon = new Map<string, string>();
  for (const r of higherTaxa) {
    const first = (r.scientific_name ?? '').split(/\s+/)[0] ?? '';
    const cn = nonEmpty(r.common_name);
    if (!first || cn === null) continue;
    const target = r.rank === 'Family' ? familyCommon : r.rank === 'Genus' ? genusCommon : null;
    if (target && !target.has(first)) target.set(first, cn);
  }
  return { family: familyCommon, genus: genusCommon };
}

/** Stage 4b: one family record per distinct USDA family, in name order. */
export function buildFamilies(taxa: Taxon[], common: HigherCommonNames): FamilyRecord[] {
  const familyNames = [...new Set(taxa.map((r) => r.family))].sort(byString);
  return familyNames.map((name) => ({
    id: name,
    slug: slugify(name),
    name,
    common_name: common.family.get(name) ?? null,
  }));
}

/** Stage 4b: one genus record per distinct genus, in name order; a genus in two families stops the build. */
export function buildGenera(taxa: Taxon[], common: HigherCommonNames): GenusRecord[] {
  const genusFamily = new Map<string, string>();
  for (const r of taxa) {
    const f = genusFamily.get(r.genus);
    if (f !== undefined && f !== r.family) throw new Error(`genus ${r.genus} in two families: ${f}, ${r.family}`);
    genusFamily.set(r.genus, r.family);
  }
  return [...genusFamily.keys()].sort(byString).map((name) => ({
    id: name,
    slug: slugify(name),
    name,
    common_name: common.genus.get(name) ?? null,
    family_id: genusFamily.get(name)!,
    family: genusFamily.get(name)!,
  }));
}

/** Stage 4b: one plant per species-rank record, which is its own main species. */
export function buildPlants(species: SpeciesRecord[]): PlantRecord[] {
  return species
    .filter((s) => s.rank === 'species')
    .map((s) => ({
      id: s.id,
      slug: s.slug,
      scientific_name: s.scientific_name,
      common_name: s.common_name,
      genus_id: s.genus_id,
      family_id: s.family_id,
      main_species_id: s.id,
    }));
}
