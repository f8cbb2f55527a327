/** Canonical (v2) record shapes: the only shapes the core knows. docs/reference/interface.md. */

export interface ColorTrait {
  /** UPPERCASE tokens, e.g. ["YELLOW", "WHITE"]; null when unknown. */
  color: string[] | null;
  conspicuous: boolean | null;
}

export interface FoliageTrait {
  color: string[] | null;
  texture: string | null;
}

export interface SpeciesRecord {
  id: string;
  slug: string;
  scientific_name: string;
  common_name: string | null;
  rank: string;
  status: string;
  duration: string[] | null;
  author: string | null;
  bibliography: string | null;
  year: number | null;
  genus_id: string;
  genus: string;
  family_id: string;
  family: string;
  family_common_name: string | null;
  plant_id: string | null;
  common_names: Record<string, string[]>;
  synonyms: string[];
  flower: ColorTrait;
  foliage: FoliageTrait;
  fruit_or_seed: ColorTrait;
  growth_rate: string | null;
}

export interface FamilyRecord {
  id: string;
  slug: string;
  name: string;
  common_name: string | null;
}

export interface GenusRecord {
  id: string;
  slug: string;
  name: string;
  common_name: string | null;
  family_id: string;
  family: string;
}

export interface PlantRecord {
  id: string;
  slug: string;
  scientific_name: string;
  common_name: string | null;
  genus_id: string;
  family_id: string;
  main_species_id: string;
}

export interface DatasetSource {
  key: string;
  title: string;
  license: string;
  url: string;
}

/** The committed fixture file (`fixtures/taxa.json`), produced by `npm run data:build`. */
export interface Dataset {
  dataset: {
    /** RFC 3339 UTC instant the source data was published; every record's `last_modified`. */
    last_modified: string;
    sources: DatasetSource[];
  };
  families: FamilyRecord[];
  genus: GenusRecord[];
  species: SpeciesRecord[];
  plants: PlantRecord[];
  /** Source keys (beyond the USDA base every record has) that contributed to a species record. */
  species_sources: Record<string, string[]>;
}
