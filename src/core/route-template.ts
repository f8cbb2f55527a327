import { RESOURCE_NAMES } from './resources';

/** The caller's own migration plan (v2 and later), below a version's base. */
export const MIGRATION_PLAN_PATH = '/migration-plan';

/**
 * The route template of any versioned request for the access log (`GET /species/{id}`,
 * `GET /genus/{id}/species`), or null for a path no route has; ids never reach the template.
 */
export function routeTemplate(method: string, pathBelowBase: string): string | null {
  return withMethod(method, pathTemplate(pathBelowBase));
}

/** A resource's templates: its collection, a record, and each enumeration below a record. */
interface ResourceTemplates {
  list: string;
  detail: string;
  children: ReadonlyMap<string, string>;
}

/**
 * Every template, made once: the access line asks for one on every request, and a template read
 * from these tables is the same string each time, neither split from the path nor joined again.
 */
const TEMPLATES: ReadonlyMap<string, ResourceTemplates> = new Map(
  RESOURCE_NAMES.map((resource) => [
    resource,
    {
      list: `/${resource}`,
      detail: `/${resource}/{id}`,
      children: new Map(RESOURCE_NAMES.map((child) => [child, `/${resource}/{id}/${child}`])),
    },
  ]),
);

/** `GET` and each path template, joined once. */
const GET_ROUTES: ReadonlyMap<string, string> = new Map(
  [MIGRATION_PLAN_PATH, ...[...TEMPLATES.values()].flatMap((t) => [t.list, t.detail, ...t.children.values()])].map((path) => [path, `GET ${path}`]),
);

/** A path template as a route template (HEAD counts as the GET it mirrors). */
export function withMethod(method: string, path: string | null): string | null {
  if (path === null) return null;
  if (method === 'GET' || method === 'HEAD') return GET_ROUTES.get(path) ?? `GET ${path}`;
  return `${method} ${path}`;
}

/** The path part of a route template (`/species/{id}`), or null for a path no route has. */
export function pathTemplate(pathBelowBase: string): string | null {
  if (pathBelowBase === MIGRATION_PLAN_PATH) return MIGRATION_PLAN_PATH;
  if (!pathBelowBase.startsWith('/')) return null;
  const afterResource = pathBelowBase.indexOf('/', 1);
  const resource = TEMPLATES.get(afterResource < 0 ? pathBelowBase.slice(1) : pathBelowBase.slice(1, afterResource));
  if (resource === undefined) return null;
  if (afterResource < 0) return resource.list;
  const afterId = pathBelowBase.indexOf('/', afterResource + 1);
  // An empty id (`/species/`, `/genus//species`) is no record's.
  if (afterId === afterResource + 1 || (afterId < 0 && afterResource + 1 === pathBelowBase.length)) return null;
  if (afterId < 0) return resource.detail;
  // Anything after the child (`/genus/ABIES/species/ABBA`) is no route's: the lookup fails on the slash.
  return resource.children.get(pathBelowBase.slice(afterId + 1)) ?? null;
}
