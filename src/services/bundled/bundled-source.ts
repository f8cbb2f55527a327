import type { Dataset, FamilyRecord, GenusRecord, PlantRecord, SpeciesRecord } from '../../core/records';
import type { AnyRecord, Detail, ListPage, ListQuery, RecordSource, ResourceName, Scope } from '../record-source';
import { PAGE_SIZE } from '../record-source';
import { ResourceIndex } from './resource-index';

const speciesIndex = (records: SpeciesRecord[]) =>
  new ResourceIndex(records, {
    id: (r) => r.id,
    sortable: {
      scientific_name: (r) => r.scientific_name,
      common_name: (r) => r.common_name,
      slug: (r) => r.slug,
      year: (r) => r.year,
      id: (r) => r.id,
    },
    searchable: (r) => [r.scientific_name, r.common_name, ...Object.values(r.common_names).flat(), ...r.synonyms],
    parents: { genus: (r) => r.genus_id, plants: (r) => r.plant_id, families: (r) => r.family_id },
  });

const nameSortable = {
  name: (r: { name: string }) => r.name,
  common_name: (r: { common_name: string | null }) => r.common_name,
  slug: (r: { slug: string }) => r.slug,
  id: (r: { id: string }) => r.id,
};

const genusIndex = (records: GenusRecord[]) =>
  new ResourceIndex(records, {
    id: (r) => r.id,
    sortable: nameSortable,
    searchable: (r) => [r.name, r.common_name],
    parents: { families: (r) => r.family_id },
  });

const familyIndex = (records: FamilyRecord[]) =>
  new ResourceIndex(records, {
    id: (r) => r.id,
    sortable: nameSortable,
    searchable: (r) => [r.name, r.common_name],
    parents: {},
  });

const plantIndex = (records: PlantRecord[]) =>
  new ResourceIndex(records, {
    id: (r) => r.id,
    sortable: {
      scientific_name: (r) => r.scientific_name,
      common_name: (r) => r.common_name,
      slug: (r) => r.slug,
      id: (r) => r.id,
    },
    searchable: (r) => [r.scientific_name, r.common_name],
    parents: { genus: (r) => r.genus_id, families: (r) => r.family_id },
  });

/** The record source over the bundled dataset; every index is built here, once. */
export class BundledSource implements RecordSource {
  private readonly indexes: { [K in ResourceName]: ResourceIndex<AnyRecord> };
  private readonly lastModified: string;
  private readonly extraSources: Record<string, string[]>;

  constructor(dataset: Dataset) {
    this.indexes = {
      species: speciesIndex(dataset.species) as ResourceIndex<AnyRecord>,
      genus: genusIndex(dataset.genus) as ResourceIndex<AnyRecord>,
      families: familyIndex(dataset.families) as ResourceIndex<AnyRecord>,
      plants: plantIndex(dataset.plants) as ResourceIndex<AnyRecord>,
    };
    this.lastModified = dataset.dataset.last_modified;
    this.extraSources = dataset.species_sources;
  }

  /** Record counts, for the start-up log. */
  counts(): Record<ResourceName, number> {
    const i = this.indexes;
    return { species: i.species.size, genus: i.genus.size, families: i.families.size, plants: i.plants.size };
  }

  async list(resource: ResourceName, query: ListQuery, scope: Scope | undefined): Promise<ListPage | undefined> {
    if (scope && !this.indexes[scope.parent].get(scope.id)) return undefined;
    const offset = (query.page - 1) * PAGE_SIZE;
    const { items, total } = this.indexes[resource].window(query.q, query.order, scope, offset, PAGE_SIZE);
    return { items, total, page: query.page, perPage: PAGE_SIZE };
  }

  async get(resource: ResourceName, id: string): Promise<Detail | undefined> {
    const record = this.indexes[resource].get(id);
    if (!record) return undefined;
    const meta: Detail['meta'] = { last_modified: this.lastModified };
    if (resource === 'species') {
      const species = record as SpeciesRecord;
      meta.synonyms_count = species.synonyms.length;
      // Every species comes from USDA PLANTS; some also carry vernacular names from VASCAN.
      meta.sources_count = 1 + (this.extraSources[species.id]?.length ?? 0);
    }
    return { record, meta };
  }
}
