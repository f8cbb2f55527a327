import { ApiError } from '../../core/api-error';
import { fnv64Hex, hex64 } from '../../core/hash';
import { RawJson, renderJson } from '../../core/json-body';
import type {
  AnyRecord,
  Detail,
  ListPage,
  ListQuery,
  Readiness,
  RecordSource,
  ResourceName,
  Scope,
  SourceContext,
  StoredDetail,
  StoredPage,
  StoredReads,
} from '../record-source';
import { PAGE_SIZE } from '../record-source';
import { UpstreamClient, type UpstreamOptions } from './client';
import { collectionOf, detailOf } from './envelope-check';

/** The collection readiness probes: the first page of the one resource every backend serves. */
const PROBE_PATH = '/v2/species';

/**
 * The record source over an existing backend that speaks the canonical v2 shapes (docs/reference/operations.md). It sees only validated v2 list queries and ids, never the caller's request, so no
 * caller credential, legacy `key`/`token` parameter or unknown parameter can reach the upstream.
 * Upstream `links` are never read: the core renders links from the page it walked.
 */
export class UpstreamSource implements RecordSource {
  private readonly client: UpstreamClient;
  private checking: Promise<Readiness> | undefined;
  /**
   * The serialized form of validated upstream records, made once per cache entry: a warm cache
   * (which hands back the same validated entry) is then served from stored bytes, as bundled
   * mode is. Keyed weakly, so it lives exactly as long as the entry.
   */
  private readonly serialized = new WeakMap<object, RawJson[]>();
  private readonly detailed = new WeakMap<object, StoredDetail>();
  readonly stored: StoredReads;

  constructor(options: UpstreamOptions) {
    this.client = new UpstreamClient(options);
    this.stored = { list: (r, q, s, ctx) => this.storedList(r, q, s, ctx), get: (r, id, ctx) => this.storedGet(r, id, ctx) };
  }

  private async storedList(resource: ResourceName, query: ListQuery, scope: Scope | undefined, ctx: SourceContext): Promise<StoredPage | undefined> {
    const page = await this.list(resource, query, scope, ctx);
    if (!page) return undefined;
    let items = this.serialized.get(page.items);
    if (!items) this.serialized.set(page.items, (items = page.items.map(serialize)));
    return { ...page, items };
  }

  private async storedGet(resource: ResourceName, id: string, ctx: SourceContext): Promise<StoredDetail | undefined> {
    const found = await this.get(resource, id, ctx);
    if (!found) return undefined;
    let stored = this.detailed.get(found.record);
    if (!stored) {
      const record = serialize(found.record);
      // The ETag rule of every source: the hash of the v2 detail body's bytes.
      stored = { record, meta: found.meta, etag: hex64(...fnv64Hex(renderJson({ data: record, meta: found.meta }))) };
      this.detailed.set(found.record, stored);
    }
    return stored;
  }

  async list(resource: ResourceName, query: ListQuery, scope: Scope | undefined, ctx: SourceContext): Promise<ListPage | undefined> {
    if (scope && !addressable(scope.id)) return undefined;
    const path = collectionPath(resource, query, scope);
    const found = await this.client.get(path, collectionOf(query.page), ctx);
    if (found) return { items: found.data, total: found.meta.total, page: query.page, perPage: PAGE_SIZE };
    if (query.page > 1) return this.pastLast(resource, query, scope, ctx);
    // Page 1 of an existing collection is never 404: the parent is unknown, or the upstream is wrong.
    if (scope) return undefined;
    throw this.client.notServed(path, ctx);
  }

  async get(resource: ResourceName, id: string, ctx: SourceContext): Promise<Detail | undefined> {
    if (!addressable(id)) return undefined;
    const found = await this.client.get(`/v2/${resource}/${encodeURIComponent(id)}`, detailOf(id), ctx);
    return found && { record: found.data, meta: found.meta };
  }

  /** Probes the upstream (one uncached call, coalesced) unless the breaker is open. */
  ready(ctx: SourceContext): Promise<Readiness> {
    this.checking ??= this.check(ctx).finally(() => (this.checking = undefined));
    return this.checking;
  }

  private async check(ctx: SourceContext): Promise<Readiness> {
    let problem: string | undefined;
    try {
      await this.client.probe(PROBE_PATH, collectionOf(1), ctx);
    } catch (err) {
      problem = err instanceof ApiError ? err.code : 'svc/internalError';
    }
    const upstream = { reachable: !problem, breaker: this.client.breaker.state, ...(problem ? { problem } : {}) };
    return { ready: !problem, report: { mode: 'upstream', upstream } };
  }

  /**
   * A 404 past page 1 means an unknown parent or a page past the last. Page 1 (usually cached)
   * tells which, and its total lets the envelope word the 404 exactly as bundled mode does.
   */
  private async pastLast(resource: ResourceName, query: ListQuery, scope: Scope | undefined, ctx: SourceContext): Promise<ListPage | undefined> {
    const first = await this.list(resource, { ...query, page: 1 }, scope, ctx);
    if (!first) return undefined;
    if (query.page <= Math.ceil(first.total / PAGE_SIZE)) {
      // The upstream contradicts itself (its data changed between the calls): a plain 404.
      throw new ApiError('svc/notFound', `Page ${query.page} is not available.`);
    }
    return { items: [], total: first.total, page: query.page, perPage: PAGE_SIZE };
  }
}

const encoder = new TextEncoder();
const serialize = (record: AnyRecord) => new RawJson(encoder.encode(JSON.stringify(record)));

/**
 * `/v2/{resource}` or `/v2/{parent}/{id}/{resource}` with `q`, each `order[...]` in the given order
 * (it is semantic), and `page` unless it is 1. Built from the parsed query, so the path is also the
 * normalised cache key: the caller's parameter order, encoding, duplicates and unknown or legacy
 * parameters never reach it.
 */
export function collectionPath(resource: ResourceName, query: ListQuery, scope: Scope | undefined): string {
  const base = scope ? `/v2/${scope.parent}/${encodeURIComponent(scope.id)}/${resource}` : `/v2/${resource}`;
  const params = [
    ...(query.q !== undefined ? [`q=${encodeURIComponent(query.q)}`] : []),
    ...query.order.map((t) => `order[${encodeURIComponent(t.field)}]=${t.direction}`),
    ...(query.page > 1 ? [`page=${query.page}`] : []),
  ];
  return params.length > 0 ? `${base}?${params.join('&')}` : base;
}

/** `.` and `..` cannot be sent as a path segment (URLs resolve them), so no record can have them as id. */
function addressable(id: string): boolean {
  return id !== '.' && id !== '..';
}
