import { RESOURCE_NAMES } from '../core/resources';
import type { ResourceName } from '../services/record-source';

/** One of the routes v1 has (collections and details), as the legacy backend serves them. */
export interface V1Route {
  resource: ResourceName;
  detail: boolean;
  /** `GET /species/{id}`: what logs and the report count by. */
  template: string;
  /** `/species/{id}`: the route in the metrics, where the method is a label of its own. */
  path: string;
}

const RESOURCES: ReadonlySet<string> = new Set(RESOURCE_NAMES);

/**
 * The v1 route of a GET or HEAD below a version base (`/species`, `/species/ABBA`), or undefined
 * for anything else, which the gateway answers itself (404, 405) whoever answers v1.
 */
export function matchV1Route(method: string, pathBelowBase: string): V1Route | undefined {
  if (method !== 'GET' && method !== 'HEAD') return undefined;
  const [empty, resource, id, ...rest] = pathBelowBase.split('/');
  if (empty !== '' || resource === undefined || !RESOURCES.has(resource) || rest.length > 0 || id === '') return undefined;
  const detail = id !== undefined;
  const path = `/${resource}${detail ? '/{id}' : ''}`;
  return { resource: resource as ResourceName, detail, template: `GET ${path}`, path };
}
