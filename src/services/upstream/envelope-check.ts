import type { AnyRecord, DetailMeta } from '../record-source';
import { PAGE_SIZE } from '../record-source';

/** An upstream body that is not the canonical v2 envelope: the gateway answers 502, never passes it on. */
export class MalformedUpstream extends Error {
  override readonly name = 'MalformedUpstream';
}

export interface UpstreamCollection {
  data: AnyRecord[];
  meta: { total: number };
}

export interface UpstreamDetail {
  data: AnyRecord;
  meta: DetailMeta;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

function check(ok: boolean, what: string): asserts ok {
  if (!ok) throw new MalformedUpstream(what);
}

function record(v: unknown, where: string): AnyRecord {
  check(isObject(v) && typeof v.id === 'string' && v.id !== '', `${where} is not a record with a string id`);
  return v as unknown as AnyRecord;
}

/**
 * Checks a collection page against the canonical envelope, strictly enough that the gateway's own
 * paging (v1 slices v2 pages) stays right: page size 20, the requested page, and as many records as
 * the total leaves for that page. Upstream `links` are not read: the gateway renders its own.
 */
export const collectionOf =
  (page: number) =>
  (body: unknown): UpstreamCollection => {
    check(isObject(body) && Array.isArray(body.data) && isObject(body.meta), 'body is not a {data: [], meta: {}} envelope');
    const { total, per_page: perPage, current_page: current } = body.meta;
    check(isCount(total), 'meta.total is not a whole number');
    check(perPage === PAGE_SIZE, `meta.per_page is not ${PAGE_SIZE}`);
    check(current === page, `meta.current_page is not the requested page ${page}`);
    const expected = Math.max(0, Math.min(PAGE_SIZE, total - (page - 1) * PAGE_SIZE));
    check(body.data.length === expected, `data holds ${body.data.length} records where meta.total implies ${expected}`);
    return { data: body.data.map((r, i) => record(r, `data[${i}]`)), meta: { total } };
  };

const COUNTS = ['synonyms_count', 'images_count', 'sources_count'] as const;

/** Checks a detail body: one record with the requested id, and `meta.last_modified` as RFC 3339. */
export const detailOf =
  (id: string) =>
  (body: unknown): UpstreamDetail => {
    check(isObject(body) && isObject(body.meta), 'body is not a {data: {}, meta: {}} envelope');
    const data = record(body.data, 'data');
    check(data.id === id, `data.id is not the requested id`);
    const { last_modified: lastModified } = body.meta;
    check(
      typeof lastModified === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(lastModified) && !Number.isNaN(Date.parse(lastModified)),
      'meta.last_modified is not an RFC 3339 instant',
    );
    for (const name of COUNTS) check(body.meta[name] === undefined || isCount(body.meta[name]), `meta.${name} is not a whole number`);
    // Only the fields a detail's meta may carry, in the upstream's order.
    const meta = Object.fromEntries(Object.entries(body.meta).filter(([k]) => k === 'last_modified' || (COUNTS as readonly string[]).includes(k)));
    return { data, meta: meta as unknown as DetailMeta };
  };
