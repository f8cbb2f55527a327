import { Hono, type Context } from 'hono';
import type { MaybePromise } from '../core/maybe-promise';
import { LRUCache } from 'lru-cache';
import { entryBytes } from '../services/cache/entry-size';
import { notModified } from '../core/conditional';
import { collectionEnvelope } from '../core/envelope';
import { fnv64Hex, hex64 } from '../core/hash';
import { JSON_TYPE, RawJson, renderJson } from '../core/json-body';
import { parseListQuery } from '../core/list-query';
import { pathname, queryParams } from '../core/query-string';
import { ENUMERATIONS, RESOURCE_NAMES } from '../core/resources';
import type { AppEnv, Services } from '../env';
import { ApiError } from '../core/api-error';
import { requireAccess } from '../policies/auth';
import { respond } from '../policies/response-headers';
import type { DetailMeta, ResourceName, Scope } from '../services/record-source';
import type { JsonObject, Version } from '../versions/version';
import { walk } from '../versions/walker';
import { KeptAnswers, PageCache } from './page-cache';

/**
 * Records rewritten for an older version, kept by the stored record they came from (its key, or
 * the object where the source gives none): public data, bounded by bytes.
 */
export const REWRITTEN_BYTES = 4 * 1024 * 1024;
type Rewritten = WeakMap<Version, LRUCache<number | RawJson, RawJson>>;
const encoder = new TextEncoder();

/**
 * A record in the caller's version: stored bytes as they are, unless a change of the version
 * rewrites records; then the record is parsed, walked and serialized once, and kept.
 */
const recordFor = (rewritten: Rewritten, version: Version, record: RawJson | JsonObject, resource: ResourceName): RawJson | JsonObject => {
  if (!walk.rewritesRecords(version)) return record;
  if (!(record instanceof RawJson)) return walk.record(version, record, resource);
  let cache = rewritten.get(version);
  if (!cache) rewritten.set(version, (cache = new LRUCache({ maxSize: REWRITTEN_BYTES, sizeCalculation: (r, key) => entryBytes(key, r.bytes.byteLength) })));
  const key = record.key ?? record;
  let out = cache.get(key);
  if (!out) cache.set(key, (out = new RawJson(encoder.encode(JSON.stringify(walk.record(version, record.parse() as JsonObject, resource))))));
  return out;
};

/** Records share a handful of instants: each `Last-Modified` is spelled once. */
const httpDates = new Map<string, string>();

/** `Last-Modified` of a detail, from its RFC 3339 `meta.last_modified`. */
function httpDate(meta: DetailMeta): string {
  let date = httpDates.get(meta.last_modified);
  if (date === undefined) {
    date = new Date(meta.last_modified).toUTCString();
    if (httpDates.size < 4096) httpDates.set(meta.last_modified, date);
  }
  return date;
}

/** A detail's validators: the headers of its 200, which hold its ETag and `Last-Modified`, and its date. */
interface DetailValidators {
  /** `Content-Type`, `ETag` and `Last-Modified`: one object, made once per answer and reused. */
  headers: Readonly<{ 'content-type': string; etag: string; 'last-modified': string }>;
  /** `meta.last_modified` (RFC 3339), for `If-Modified-Since`. */
  modified: string;
}

/** A detail as it is kept: its body and validators. */
interface RenderedDetail extends DetailValidators {
  body: Uint8Array<ArrayBuffer>;
}

/** A detail not kept: its body is rendered only if it is sent. */
interface FreshDetail extends DetailValidators {
  body: Uint8Array<ArrayBuffer> | undefined;
  render(): Uint8Array<ArrayBuffer>;
}

/**
 * Rendered details kept at most, in bytes (a species detail is about 1 KB, so some 3,000), and the
 * keys remembered as asked for once.
 */
export const DETAIL_CACHE_BYTES = 4 * 1024 * 1024;
const SEEN_DETAILS = 4096;

/** A detail body in the caller's version. */
const detailBody = (rewritten: Rewritten, version: Version, found: { record: unknown; meta: DetailMeta }, resource: ResourceName) =>
  renderJson(walk.detail(version, { data: recordFor(rewritten, version, found.record as RawJson | JsonObject, resource), meta: found.meta }));

/**
 * The resource routes of every version, relative to a version base: the v2 core (list queries,
 * envelopes, records) composed with the access policy and the version walker. Handlers speak v2
 * only; the walker turns their result into the caller's version. Records a source keeps
 * serialized are copied into the body, never re-parsed, unless a version change reads them.
 */
export function coreRoutes(services: Pick<Services, 'source' | 'header'>): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  const { source } = services;
  // Kept per router: record keys and pages belong to this source.
  const rewritten: Rewritten = new WeakMap();
  const pages = source.immutable ? new PageCache() : undefined;
  const details = source.immutable ? new KeptAnswers<RenderedDetail>(DETAIL_CACHE_BYTES, SEEN_DETAILS, (d) => d.body.buffer.byteLength + 224) : undefined;

  // A kept answer is returned at once, without a promise: the policies around the route then send it
  // without one either (src/policies/policy.ts).
  const list = (c: Context<AppEnv>, resource: ResourceName, scope?: Scope): MaybePromise<Response> => {
    requireAccess(c, resource);
    const version = c.get('version')!;
    const url = c.req.url;
    const key = pages?.keyOf(version, url);
    const kept = key === undefined ? undefined : pages!.get(key);
    if (kept) return respond(c, kept, 200, JSON_TYPE);
    return renderList(c, version, url, key, resource, scope);
  };

  const renderList = async (c: Context<AppEnv>, version: Version, url: string, key: string | undefined, resource: ResourceName, scope?: Scope) => {
    const requested = parseListQuery(queryParams(url), resource);
    const query = walk.listQuery(version, requested);
    const ctx = { requestId: c.get('requestId'), trace: c.get('trace') };
    const page = source.stored ? await source.stored.list(resource, query, scope, ctx) : await source.list(resource, query, scope, ctx);
    if (!page) throw new ApiError('svc/notFound', `No ${scope!.parent} record has id "${scope!.id}".`);
    const walked = walk.page(version, { ...page, items: page.items as unknown as JsonObject[] }, requested);
    const items = walked.items.map((r) => recordFor(rewritten, version, r, resource) as JsonObject);
    const body = renderJson(walk.collection(version, collectionEnvelope({ ...walked, items }, pathname(url), url)));
    if (key !== undefined) pages!.set(key, body);
    return respond(c, body, 200, JSON_TYPE);
  };

  const detail = (c: Context<AppEnv>, resource: ResourceName): MaybePromise<Response> => {
    requireAccess(c, resource);
    const version = c.get('version')!;
    const id = c.req.param('id')!;
    const key = details && `${version.name} ${resource}/${id}`;
    const kept = key === undefined ? undefined : details!.get(key);
    if (kept) return answerDetail(c, kept);
    return renderDetail(c, version, resource, id, key).then((fresh) => answerDetail(c, fresh));
  };

  /** A detail's 304 when the request's validators match, else its 200. */
  const answerDetail = (c: Context<AppEnv>, answer: RenderedDetail | FreshDetail) => {
    const { etag, 'last-modified': lastModified } = answer.headers;
    if (notModified({ ifNoneMatch: services.header(c, 'if-none-match'), ifModifiedSince: services.header(c, 'if-modified-since') }, etag, answer.modified)) {
      return respond(c, null, 304, { etag, 'last-modified': lastModified });
    }
    return respond(c, answer.body ?? (answer as FreshDetail).render(), 200, answer.headers);
  };

  /**
   * A detail in the caller's version. The ETag is the hash of the body's bytes, whatever the
   * source. A stored record carries the hash of its v2 detail, so a version that serves the core's
   * body needs no hashing, and the body is rendered only for a 200, unless it is to be kept.
   */
  const renderDetail = async (c: Context<AppEnv>, version: Version, resource: ResourceName, id: string, key: string | undefined): Promise<FreshDetail> => {
    const ctx = { requestId: c.get('requestId'), trace: c.get('trace') };
    const found = source.stored ? await source.stored.get(resource, id, ctx) : await source.get(resource, id, ctx);
    if (!found) throw new ApiError('svc/notFound', `No ${resource} record has id "${id}".`);
    const render = () => detailBody(rewritten, version, found, resource);
    const stored = 'etag' in found && !walk.rewritesDetails(version);
    const body = stored && key === undefined ? undefined : render();
    const etag = `"${stored ? found.etag : hex64(...fnv64Hex(body!))}"`;
    const modified = found.meta.last_modified;
    // A literal, the cheapest object there is (a spread costs 1.6 times as much on Node 24): sent with every 200.
    const headers = { 'content-type': JSON_TYPE['content-type'], etag, 'last-modified': httpDate(found.meta) };
    // Kept without the stored record: only the bytes sent and the validators.
    if (key !== undefined) details!.set(key, { headers, modified, body: body! });
    return { headers, modified, body, render };
  };

  for (const resource of RESOURCE_NAMES) {
    router.get(`/${resource}`, (c) => list(c, resource));
    router.get(`/${resource}/:id`, (c) => detail(c, resource));
  }
  for (const { parent, child } of ENUMERATIONS) {
    // Checked in the route itself, not by a middleware of its own: one handler a path, so a kept
    // page of children goes out without a promise too.
    router.get(`/${parent}/:id/${child}`, (c) => {
      const version = c.get('version')!;
      if (!walk.hasEnumerations(version)) throw new ApiError('svc/notFound', `/${parent}/{id}/${child} does not exist in ${version.name}.`);
      return list(c, child, { parent, id: c.req.param('id')! });
    });
  }
  return router;
}
