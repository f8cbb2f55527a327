import type { Dataset, DatasetSource } from '../../src/core/records';
import { buildFamilies, buildGenera, buildPlants, higherCommonNames } from './collections';
import type { Sources } from './csv';
import { buildSpecies } from './species';
import { readSynonyms } from './synonyms';
import { assignSlugs, readTaxa, speciesByName } from './taxa';
import { readTraits } from './traits';
import { readVernacular } from './vernacular';

/** Publication date of the USDA PLANTS extract (kjhealy/usdaplants commit of 2026-03-18). */
export const LAST_MODIFIED = '2026-03-18T00:00:00Z';

/** The sources `dataset.sources` credits, with their licences (CC BY requires the attribution). */
export const SOURCES: DatasetSource[] = [
  {
    key: 'usda',
    title: 'USDA, NRCS. The PLANTS Database. National Plant Data Team, Greensboro, NC USA',
    license: 'Public domain',
    url: 'https://plants.usda.gov',
  },
  {
    key: 'vascan',
    title:
      'Uprety Y., Asselin H., Dhakal A., Julien N. (2012) Traditional use of medicinal plants in the boreal ' +
      'forest of Canada: review and perspectives. J. Ethnobiol. Ethnomed. 8:7 ' +
      '(via Datafable vascan-traditional-use)',
    license: 'CC BY 2.0',
    url: 'https://doi.org/10.1186/1746-4269-8-7',
  },
];

/** What the build found, printed after the fixture is written. */
export interface BuildStats {
  ranks: Record<string, number>;
  families: number;
  familiesWithCommonName: number;
  genera: number;
  plants: number;
  withTraits: number;
  withSynonyms: number;
  withNonEnglish: number;
  withVascan: number;
  vascanTaxa: number;
  vascanDirect: number;
  vascanViaSynonym: number;
  vascanUnmatched: string[];
  vascanNamesWithoutLanguage: number;
  slugCollisions: string[];
  warnings: string[];
}

/**
 * Stages 2 to 4: the tables into the `Dataset`. Accepted taxa first (names parsed and checked,
 * slugs), then what joins to them (synonyms, traits, VASCAN names, family and genus common names),
 * then the records. Notes that do not stop the build are collected in `stats.warnings`.
 */
export function buildDataset(sources: Sources): { dataset: Dataset; stats: BuildStats } {
  const warnings: string[] = [];
  const taxa = readTaxa(sources.plants, warnings);
  const known = new Set(taxa.map((t) => t.id));
  const speciesByCanonical = speciesByName(taxa);
  const { slugOf, slugCollisions } = assignSlugs(taxa);
  const synonyms = readSynonyms(sources.synonyms, known, warnings);
  const traitsOf = readTraits(sources.characteristics, known, warnings);
  const vernacular = readVernacular(sources, taxa, synonyms, warnings);
  const common = higherCommonNames(sources.higherTaxa);

  const { species, speciesSources, withNonEnglish } = buildSpecies(
    taxa,
    { slugOf, speciesByCanonical, synonyms, traitsOf, vernacular, familyCommon: common.family },
    warnings,
  );
  const families = buildFamilies(taxa, common);
  const genus = buildGenera(taxa, common);
  for (const list of [families.map((f) => f.slug), genus.map((g) => g.slug)]) {
    if (new Set(list).size !== list.length) throw new Error('family/genus slug collision');
  }
  const plants = buildPlants(species);

  const ranks: Record<string, number> = {};
  for (const s of species) ranks[s.rank] = (ranks[s.rank] ?? 0) + 1;
  const dataset: Dataset = {
    dataset: { last_modified: LAST_MODIFIED, sources: SOURCES },
    families,
    genus,
    species,
    plants,
    species_sources: speciesSources,
  };
  return {
    dataset,
    stats: {
      ranks,
      families: families.length,
      familiesWithCommonName: families.filter((f) => f.common_name !== null).length,
      genera: genus.length,
      plants: plants.length,
      withTraits: traitsOf.size,
      withSynonyms: species.filter((s) => s.synonyms.length > 0).length,
      withNonEnglish,
      withVascan: Object.keys(speciesSources).length,
      vascanTaxa: sources.vascanTaxa.length,
      vascanDirect: vernacular.direct,
      vascanViaSynonym: vernacular.viaSynonym,
      vascanUnmatched: vernacular.unmatched,
      vascanNamesWithoutLanguage: vernacular.withoutLanguage,
      slugCollisions,
      warnings,
    },
  };
}
