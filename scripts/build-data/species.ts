import type { SpeciesRecord } from '../../src/core/records';
import { nonEmpty } from './csv';
import { authorOf } from './names';
import { byString } from './order';
import type { Synonyms } from './synonyms';
import { RANKS, type Taxon } from './taxa';
import { traits } from './traits';
import { commonNames, type Vernacular } from './vernacular';

/** What a species record is joined from, besides its taxon. */
export interface SpeciesInputs {
  slugOf: Map<string, string>;
  /** The species-rank taxon of each canonical name (`speciesByName`). */
  speciesByCanonical: Map<string, string>;
  synonyms: Synonyms;
  traitsOf: Map<string, Record<string, string>>;
  vernacular: Vernacular;
  familyCommon: Map<string, string>;
}

/** Species records in id order, `species_sources` (the ids that carry VASCAN names), and how many have a non-English name. */
export interface BuiltSpecies {
  species: SpeciesRecord[];
  speciesSources: Record<string, string[]>;
  withNonEnglish: number;
}

/** Stage 4a: one species record per accepted taxon, joined with its synonyms, traits and names. */
export function buildSpecies(taxa: Taxon[], inputs: SpeciesInputs, warnings: string[]): BuiltSpecies {
  const species: SpeciesRecord[] = [];
  const speciesSources: Record<string, string[]> = {};
  let withNonEnglish = 0;
  for (const r of [...taxa].sort((a, b) => byString(a.id, b.id))) {
    const src = r.src;
    const commonName = nonEmpty(src.common_name);
    const duration = nonEmpty(src.duration);
    let plantId: string | null;
    if (r.rank === 'Species') plantId = r.id;
    else plantId = inputs.speciesByCanonical.get(`${r.parsed.genus} ${r.parsed.epithet}`) ?? null;
    if (plantId === null) warnings.push(`${r.id}: no species-rank taxon for "${r.canonical}"`);

    const vn = inputs.vernacular.namesOf.get(r.id) ?? [];
    const names = commonNames(commonName, vn);
    if (Object.keys(names).some((l) => l !== 'en')) withNonEnglish++;
    if (vn.length > 0) speciesSources[r.id] = ['vascan'];
    species.push({
      id: r.id,
      slug: inputs.slugOf.get(r.id)!,
      scientific_name: r.canonical,
      common_name: commonName,
      rank: RANKS[r.rank]!,
      status: 'accepted',
      duration:
        duration === null
          ? null
          : duration
              .split(',')
              .map((d) => d.trim().toLowerCase())
              .filter((d) => d),
      author: authorOf(r.parsed),
      bibliography: null,
      year: null,
      genus_id: r.genus,
      genus: r.genus,
      family_id: r.family,
      family: r.family,
      family_common_name: inputs.familyCommon.get(r.family) ?? null,
      plant_id: plantId,
      common_names: names,
      synonyms: inputs.synonyms.namesOf.get(r.id) ?? [],
      ...traits(inputs.traitsOf.get(r.id)),
    });
  }
  return { species, speciesSources, withNonEnglish };
}
