import type { Enumeration } from '../core/resources';
import type { ResourceName } from '../services/record-source';

/** Component names of a resource family, shared by the core document and the version changes. */
const RECORD: Record<ResourceName, string> = { species: 'Species', genus: 'Genus', families: 'Family', plants: 'Plant' };

export const recordSchema = (resource: ResourceName) => RECORD[resource];
export const collectionSchema = (resource: ResourceName) => `${RECORD[resource]}Collection`;
export const detailSchema = (resource: ResourceName) => `${RECORD[resource]}Detail`;
/** Error responses are components named by status: `Error404`. */
export const errorResponse = (status: number) => `Error${status}`;
export const ERROR_RESPONSE = /^Error(\d{3})$/;

export const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const responseRef = (name: string) => ({ $ref: `#/components/responses/${name}` });
export const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });
export const parameterRef = (name: string) => ({ $ref: `#/components/parameters/${name}` });

/** Paths, relative to a version's base. */
export const collectionPath = (resource: ResourceName) => `/${resource}`;
export const detailPath = (resource: ResourceName) => `/${resource}/{id}`;
export const enumerationPath = ({ parent, child }: Enumeration) => `/${parent}/{id}/${child}`;
export { MIGRATION_PLAN_PATH } from '../core/route-template';
/** Each version's own description, beside its resources. */
export const DESCRIPTION_PATH = '/openapi.json';

/** A request for a version's description, which needs no credential and is open to browsers. */
export const isDescriptionPath = (path: string, base: string) => base !== '' && path === `${base}${DESCRIPTION_PATH}`;
