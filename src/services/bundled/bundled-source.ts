import type { Dataset, FamilyRecord, GenusRecord, PlantRecord, SpeciesRecord } from '../../core/records';
import type { AnyRecord, Detail, ListPage, ListQuery, RecordSource, ResourceName, Scope } from '../record-source';
import { PAGE_SIZE } from '../record-source';
import { RESOURCES } from '../../core/resources';
import { ResourceIndex } from './resource-index';

/** Sort values are read by field name, so the index sorts exactly the fields the core accepts. */
const sortable = (resource: ResourceName) =>
  Object.fromEntries(RESOURCES[resource].sortable.map((field) => [field, (r: AnyRecord) => (r as unknown as Record<string, string | number | null>)[field] ?? null]));

const speciesIndex = (records: SpeciesRecord[]) =>
  new ResourceIndex<AnyRecord>(records, {
    id: (r) => r.id,
    sortable: sortable('species'),
    searchable: (r) => {
      const s = r as SpeciesRecord;
      return [s.scientific_name, s.common_name, ...Object.values(s.common_names).flat(), ...s.synonyms];
    },
    parents: { genus: (r) => (r as SpeciesRecord).genus_id, plants: (r) => (r as SpeciesRecord).plant_id, families: (r) => (r as SpeciesRecord).family_id },
  });

const taxonIndex = (resource: 'genus' | 'families', records: Array<GenusRecord | FamilyRecord>) =>
  new ResourceIndex<AnyRecord>(records, {
    id: (r) => r.id,
    sortable: sortable(resource),
    searchable: (r) => [(r as GenusRecord).name, (r as GenusRecord).common_name],
    parents: resource === 'genus' ? { families: (r) => (r as GenusRecord).family_id } : {},
  });

const plantIndex = (records: PlantRecord[]) =>
  new ResourceIndex<AnyRecord>(records, {
    id: (r) => r.id,
    sortable: sortable('plants'),
    searchable: (r) => [(r as PlantRecord).scientific_name, (r as PlantRecord).common_name],
    parents: { genus: (r) => (r as PlantRecord).genus_id, families: (r) => (r as PlantRecord).family_id },
  });

/** The record source over the bundled dataset; every index is built here, once. */
export class BundledSource implements RecordSource {
  private readonly indexes: { [K in ResourceName]: ResourceIndex<AnyRecord> };
  private readonly lastModified: string;
  private readonly extraSources: Record<string, string[]>;

  constructor(dataset: Dataset) {
    this.indexes = {
      species: speciesIndex(dataset.species),
      genus: taxonIndex('genus', dataset.genus),
      families: taxonIndex('families', dataset.families),
      plants: plantIndex(dataset.plants),
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
