import { RESOURCE_NAMES } from '../core/resources';
import type { ResourceName } from '../services/record-source';

/** One of the routes v1 has (collections and details), as the legacy backend serves them. */
export interface V1Route {
  resource: ResourceName;
  detail: boolean;
  /** `GET /species/{id}`: what logs and the report count by. */
  template: string;
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
  return { resource: resource as ResourceName, detail, template: `GET /${resource}${detail ? '/{id}' : ''}` };
}

/**
 * The route template of any versioned request for the access log (`GET /species/{id}`,
 * `GET /genus/{id}/species`), or null for a path no route has; ids never reach the template.
 */
export function routeTemplate(method: string, pathBelowBase: string): string | null {
  const verb = method === 'HEAD' ? 'GET' : method;
  const [empty, resource, id, child, ...rest] = pathBelowBase.split('/');
  if (empty !== '' || resource === undefined || !RESOURCES.has(resource) || rest.length > 0 || id === '' || child === '') return null;
  if (child !== undefined) return RESOURCES.has(child) ? `${verb} /${resource}/{id}/${child}` : null;
  return `${verb} /${resource}${id === undefined ? '' : '/{id}'}`;
}
