import type { ResourceName } from './query';

/** What the core knows of each resource family: its sortable fields and its child lists. */
export interface ResourceDef {
  sortable: readonly string[];
}

export const RESOURCES: Record<ResourceName, ResourceDef> = {
  species: { sortable: ['scientific_name', 'common_name', 'slug', 'year', 'id'] },
  genus: { sortable: ['name', 'common_name', 'slug', 'id'] },
  families: { sortable: ['name', 'common_name', 'slug', 'id'] },
  plants: { sortable: ['scientific_name', 'common_name', 'slug', 'id'] },
};

export const RESOURCE_NAMES = Object.keys(RESOURCES) as ResourceName[];

/** The enumeration routes (new in v2): `/{parent}/{id}/{child}`. */
export interface Enumeration {
  parent: ResourceName;
  child: ResourceName;
}

export const ENUMERATIONS: readonly Enumeration[] = [
  { parent: 'families', child: 'genus' },
  { parent: 'genus', child: 'species' },
  { parent: 'genus', child: 'plants' },
  { parent: 'plants', child: 'species' },
];
