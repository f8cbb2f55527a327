import type { Dataset, GenusRecord, PlantRecord, SpeciesRecord } from '../../../core/records';
import { RESOURCES } from '../../../core/resources';
import type { AnyRecord, ResourceName } from '../../record-source';

/** How the compiler reads one resource of the dataset. */
export interface ResourceSpec {
  records: readonly AnyRecord[];
  sortable: readonly string[];
  /** Texts `q` matches as a substring (after folding), each field on its own. */
  searchable(record: AnyRecord): Array<string | null>;
  /** Parent resources a child list can be scoped by, and the parent id each record names. */
  parents: Partial<Record<ResourceName, (record: AnyRecord) => string | null>>;
  /** `meta` counts of a detail, beyond `last_modified`, in the order they are rendered. */
  detailCounts: Record<string, (record: AnyRecord) => number>;
}

/** What each resource of the bundled dataset is made of, for the compiler. */
export function resourceSpecs(dataset: Dataset): Record<ResourceName, ResourceSpec> {
  const species = (r: AnyRecord) => r as SpeciesRecord;
  return {
    species: {
      records: dataset.species,
      sortable: RESOURCES.species.sortable,
      searchable: (r) => [species(r).scientific_name, species(r).common_name, ...Object.values(species(r).common_names).flat(), ...species(r).synonyms],
      parents: { genus: (r) => species(r).genus_id, plants: (r) => species(r).plant_id, families: (r) => species(r).family_id },
      detailCounts: {
        synonyms_count: (r) => species(r).synonyms.length,
        // Every species comes from USDA PLANTS; some also carry vernacular names from VASCAN.
        sources_count: (r) => 1 + (dataset.species_sources[r.id]?.length ?? 0),
      },
    },
    genus: {
      records: dataset.genus,
      sortable: RESOURCES.genus.sortable,
      searchable: (r) => [(r as GenusRecord).name, (r as GenusRecord).common_name],
      parents: { families: (r) => (r as GenusRecord).family_id },
      detailCounts: {},
    },
    families: {
      records: dataset.families,
      sortable: RESOURCES.families.sortable,
      searchable: (r) => [(r as GenusRecord).name, (r as GenusRecord).common_name],
      parents: {},
      detailCounts: {},
    },
    plants: {
      records: dataset.plants,
      sortable: RESOURCES.plants.sortable,
      searchable: (r) => [(r as PlantRecord).scientific_name, (r as PlantRecord).common_name],
      parents: { genus: (r) => (r as PlantRecord).genus_id, families: (r) => (r as PlantRecord).family_id },
      detailCounts: {},
    },
  };
}
