import { RESOURCE_NAMES } from './resources';

const RESOURCES: ReadonlySet<string> = new Set(RESOURCE_NAMES);
/** The caller's own migration plan (v2 and later), below a version's base. */
export const MIGRATION_PLAN_PATH = '/migration-plan';

/**
 * The route template of any versioned request for the access log (`GET /species/{id}`,
 * `GET /genus/{id}/species`), or null for a path no route has; ids never reach the template.
 */
export function routeTemplate(method: string, pathBelowBase: string): string | null {
  return withMethod(method, pathTemplate(pathBelowBase));
}

/** A path template as a route template (HEAD counts as the GET it mirrors). */
export function withMethod(method: string, path: string | null): string | null {
  return path === null ? null : `${method === 'HEAD' ? 'GET' : method} ${path}`;
}

/** The path part of a route template (`/species/{id}`), or null for a path no route has. */
export function pathTemplate(pathBelowBase: string): string | null {
  if (pathBelowBase === MIGRATION_PLAN_PATH) return MIGRATION_PLAN_PATH;
  const [empty, resource, id, child, ...rest] = pathBelowBase.split('/');
  if (empty !== '' || resource === undefined || !RESOURCES.has(resource) || rest.length > 0 || id === '' || child === '') return null;
  if (child !== undefined) return RESOURCES.has(child) ? `/${resource}/{id}/${child}` : null;
  return `/${resource}${id === undefined ? '' : '/{id}'}`;
}
