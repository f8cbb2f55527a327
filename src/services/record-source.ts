import type { RawJson } from '../core/json-body';
import type { ListQuery, ResourceName } from '../core/query';
import type { BackendFacts } from './metrics';
import type { FamilyRecord, GenusRecord, PlantRecord, SpeciesRecord } from '../core/records';

// The request terms are the core's; re-exported for the sources that answer them.
export type { ListQuery, OrderTerm, ResourceName } from '../core/query';
export { PAGE_SIZE } from '../core/query';

export interface RecordOf {
  species: SpeciesRecord;
  genus: GenusRecord;
  families: FamilyRecord;
  plants: PlantRecord;
}

export type AnyRecord = RecordOf[ResourceName];

/** Restricts a list to the children of one parent record, e.g. the species of genus `Abies`. */
export interface Scope {
  parent: ResourceName;
  id: string;
}

export interface ListPage {
  items: AnyRecord[];
  total: number;
  page: number;
  perPage: number;
}

export interface DetailMeta {
  last_modified: string;
  synonyms_count?: number;
  images_count?: number;
  sources_count?: number;
}

export interface Detail {
  record: AnyRecord;
  meta: DetailMeta;
}

/** Per-call context a source may forward (upstream mode forwards the request id). */
export interface SourceContext {
  requestId: string;
  /** Where a backend client notes what it did for the request (status, time, cache result). */
  backend?: BackendFacts;
}

/** What `GET /readyz` reports of a source: `ready` decides 200 or 503; `report` is shown as is. */
export interface Readiness {
  ready: boolean;
  report: Record<string, unknown>;
}

/** A page whose records are kept serialized (their canonical JSON bytes). */
export interface StoredPage {
  items: RawJson[];
  total: number;
  page: number;
  perPage: number;
}

/** A detail whose record is kept serialized, with its stored validator (a hash of the v2 detail). */
export interface StoredDetail {
  record: RawJson;
  meta: DetailMeta;
  etag: string;
}

/**
 * The answers of `list` and `get` with every record as the bytes it serializes to, for a source
 * that keeps records serialized: the core copies them into the body and parses only the records a
 * version change reads.
 */
export interface StoredReads {
  list(resource: ResourceName, query: ListQuery, scope: Scope | undefined, ctx: SourceContext): Promise<StoredPage | undefined>;
  get(resource: ResourceName, id: string, ctx: SourceContext): Promise<StoredDetail | undefined>;
}

/**
 * Where the core reads records: the bundled dataset or an upstream backend.
 * `undefined` means the record (or the scope's parent) does not exist.
 * A page past the last returns no items; the envelope decides whether that is a 404.
 */
export interface RecordSource {
  list(resource: ResourceName, query: ListQuery, scope: Scope | undefined, ctx: SourceContext): Promise<ListPage | undefined>;
  get(resource: ResourceName, id: string, ctx: SourceContext): Promise<Detail | undefined>;
  /** Whether the source can serve now (upstream mode probes its backend); absent means in-process, always ready. */
  ready?(ctx: SourceContext): Promise<Readiness>;
  /** The same reads with records kept serialized; the core prefers them when present. */
  stored?: StoredReads;
  /** Its answers never change while the process lives (the bundled dataset), so rendered answers may be kept. */
  immutable?: boolean;
}
