import { Hono, type Context } from 'hono';
import { LRUCache } from 'lru-cache';
import { createMiddleware } from 'hono/factory';
import { notModified } from '../core/conditional';
import { collectionEnvelope } from '../core/envelope';
import { fnv64Hex, hex64 } from '../core/hash';
import { RawJson, renderJson } from '../core/json-body';
import { parseListQuery } from '../core/list-query';
import { ENUMERATIONS, RESOURCE_NAMES } from '../core/resources';
import type { AppEnv, Services } from '../env';
import { ApiError } from '../errors/api-error';
import { requireAccess } from '../policies/auth';
import type { DetailMeta, ResourceName, Scope } from '../services/record-source';
import type { JsonObject, Version } from '../versions/version';
import { walk } from '../versions/walker';
import { methodNotAllowed, READ_ONLY } from './method-not-allowed';

const JSON_TYPE = { 'Content-Type': 'application/json' };

const notAllowed = methodNotAllowed(READ_ONLY);

/** Records rewritten for an older version, kept by the stored record they came from (public data, bounded). */
const REWRITTEN_MAX = 10_000;
const rewritten = new WeakMap<Version, LRUCache<RawJson, RawJson>>();
const encoder = new TextEncoder();

/**
 * A record in the caller's version: stored bytes as they are, unless a change of the version
 * rewrites records; then the record is parsed, walked and serialized once, and kept.
 */
const recordFor = (version: Version, record: RawJson | JsonObject, resource: ResourceName): RawJson | JsonObject => {
  if (!walk.rewritesRecords(version)) return record;
  if (!(record instanceof RawJson)) return walk.record(version, record, resource);
  let cache = rewritten.get(version);
  if (!cache) rewritten.set(version, (cache = new LRUCache({ max: REWRITTEN_MAX })));
  let out = cache.get(record);
  if (!out) cache.set(record, (out = new RawJson(encoder.encode(JSON.stringify(walk.record(version, record.parse() as JsonObject, resource))))));
  return out;
};

/**
 * The resource routes of every version, relative to a version base: the v2 core (list queries,
 * envelopes, records) composed with the access policy and the version walker. Handlers speak v2
 * only; the walker turns their result into the caller's version. Records a source keeps
 * serialized are copied into the body, never re-parsed, unless a version change reads them.
 */
export function coreRoutes(services: Pick<Services, 'source'>): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  const { source } = services;

  const list = async (c: Context<AppEnv>, resource: ResourceName, scope?: Scope) => {
    requireAccess(c, resource);
    const version = c.get('version')!;
    const url = new URL(c.req.url);
    const requested = parseListQuery(url.searchParams, resource);
    const query = walk.listQuery(version, requested);
    const ctx = { requestId: c.get('requestId') };
    const page = source.stored ? await source.stored.list(resource, query, scope, ctx) : await source.list(resource, query, scope, ctx);
    if (!page) throw new ApiError('svc/notFound', `No ${scope!.parent} record has id "${scope!.id}".`);
    const walked = walk.page(version, { ...page, items: page.items as unknown as JsonObject[] }, requested);
    const items = walked.items.map((r) => recordFor(version, r, resource) as JsonObject);
    const body = collectionEnvelope({ ...walked, items }, url.pathname, c.req.url);
    return c.body(renderJson(walk.collection(version, body)), 200, JSON_TYPE);
  };

  const detail = async (c: Context<AppEnv>, resource: ResourceName) => {
    requireAccess(c, resource);
    const version = c.get('version')!;
    const id = c.req.param('id')!;
    const ctx = { requestId: c.get('requestId') };
    const found = source.stored ? await source.stored.get(resource, id, ctx) : await source.get(resource, id, ctx);
    if (!found) throw new ApiError('svc/notFound', `No ${resource} record has id "${id}".`);
    const render = () => renderJson(walk.detail(version, { data: recordFor(version, found.record as RawJson | JsonObject, resource), meta: found.meta }));
    // The ETag is the hash of the body's bytes, whatever the source. A stored record carries the
    // hash of its v2 detail, so a version that serves the core's body needs no hashing at all.
    let body: Uint8Array<ArrayBuffer> | undefined;
    const hash = 'etag' in found && !walk.rewritesDetails(version) ? found.etag : hex64(...fnv64Hex((body = render())));
    const tag = `"${hash}"`;
    const validators = { ETag: tag, 'Last-Modified': httpDate(found.meta) };
    if (notModified({ ifNoneMatch: c.req.header('If-None-Match'), ifModifiedSince: c.req.header('If-Modified-Since') }, tag, found.meta.last_modified)) {
      return c.body(null, 304, validators);
    }
    return c.body(body ?? render(), 200, { ...JSON_TYPE, ...validators });
  };

  for (const resource of RESOURCE_NAMES) {
    router.get(`/${resource}`, (c) => list(c, resource));
    router.all(`/${resource}`, notAllowed);
    router.get(`/${resource}/:id`, (c) => detail(c, resource));
    router.all(`/${resource}/:id`, notAllowed);
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
    router.all(path, notAllowed);
  }
  return router;
}

/** `Last-Modified` of a detail, from its RFC 3339 `meta.last_modified`. */
const httpDate = (meta: DetailMeta) => new Date(meta.last_modified).toUTCString();
