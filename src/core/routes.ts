import { Hono, type Context } from 'hono';
import { etag } from 'hono/etag';
import { createMiddleware } from 'hono/factory';
import type { AppEnv, Services } from '../env';
import { ApiError } from '../errors/api-error';
import { requireAccess } from '../policies/auth';
import type { ResourceName, Scope } from '../services/record-source';
import type { JsonObject } from '../versions/version';
import { walk } from '../versions/walker';
import { collectionEnvelope } from './envelope';
import { parseListQuery } from './list-query';
import { ENUMERATIONS, RESOURCE_NAMES } from './resources';

const ALLOW = 'GET, HEAD';

const methodNotAllowed = (c: Context<AppEnv>): never => {
  throw new ApiError('svc/methodNotAllowed', `${c.req.method} is not allowed here; use GET or HEAD.`, { Allow: ALLOW });
};

/**
 * The canonical core's routes, relative to a version base. Handlers speak v2 only; the version
 * walker turns their result into the caller's version.
 */
export function coreRoutes(services: Pick<Services, 'source'>): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  const { source } = services;

  const list = async (c: Context<AppEnv>, resource: ResourceName, scope?: Scope) => {
    requireAccess(c, resource);
    const version = c.get('version')!;
    const url = new URL(c.req.url);
    const requested = parseListQuery(url.searchParams, resource);
    const page = await source.list(resource, walk.listQuery(version, requested), scope, { requestId: c.get('requestId') });
    if (!page) throw new ApiError('svc/notFound', `No ${scope!.parent} record has id "${scope!.id}".`);
    const walked = walk.page(version, { ...page, items: page.items as unknown as JsonObject[] }, requested);
    const body = collectionEnvelope(
      { ...walked, items: walked.items.map((r) => walk.record(version, r, resource)) },
      url.pathname,
      c.req.url,
    );
    return c.json(walk.collection(version, body));
  };

  const detail = async (c: Context<AppEnv>, resource: ResourceName) => {
    requireAccess(c, resource);
    const version = c.get('version')!;
    const id = c.req.param('id')!;
    const found = await source.get(resource, id, { requestId: c.get('requestId') });
    if (!found) throw new ApiError('svc/notFound', `No ${resource} record has id "${id}".`);
    const record = walk.record(version, found.record as unknown as JsonObject, resource);
    c.header('Last-Modified', new Date(found.meta.last_modified).toUTCString());
    return c.json(walk.detail(version, { data: record, meta: found.meta }));
  };

  for (const resource of RESOURCE_NAMES) {
    router.get(`/${resource}`, (c) => list(c, resource));
    router.all(`/${resource}`, methodNotAllowed);
    router.get(`/${resource}/:id`, etag(), (c) => detail(c, resource));
    router.all(`/${resource}/:id`, methodNotAllowed);
  }
  for (const { parent, child } of ENUMERATIONS) {
    const path = `/${parent}/:id/${child}`;
    const exists = createMiddleware<AppEnv>(async (c, next) => {
      const version = c.get('version')!;
      if (!walk.hasEnumerations(version)) throw new ApiError('svc/notFound', `/${parent}/{id}/${child} does not exist in ${version.name}.`);
      await next();
    });
    router.use(path, exists);
    router.get(path, (c) => list(c, child, { parent, id: c.req.param('id')! }));
    router.all(path, methodNotAllowed);
  }
  return router;
}
