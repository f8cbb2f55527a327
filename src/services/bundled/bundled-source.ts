import { RawJson } from '../../core/json-body';
import type { Dataset } from '../../core/records';
import { RESOURCE_NAMES } from '../../core/resources';
import type {
  AnyRecord,
  Detail,
  ListPage,
  ListQuery,
  Readiness,
  RecordSource,
  ResourceName,
  Scope,
  StoredDetail,
  StoredPage,
  StoredReads,
} from '../record-source';
import { PAGE_SIZE } from '../record-source';
import { compileDataset } from './compile/index';
import { locate } from './compiled/locate';
import { CompiledResource } from './compiled/resource';
import { sortedRecords } from './compiled/sorted';
import { PieceCache } from './compiled/piece-cache';
import { memoryStore, type SectionStore } from './compiled/store';
import { ResultCache } from './result-cache';

/**
 * The record source over the bundled dataset, read from its compiled form (src/services/bundled/
 * compile): records stay serialized, orders and search are precomputed, and a request decodes only
 * what it touches. Built from a section store (the artifact in memory, or pieces read through the
 * Workers assets binding), or from a `Dataset`, compiled in memory first (tests, tools).
 */
export class BundledSource implements RecordSource {
  private readonly resources: Record<ResourceName, CompiledResource>;
  private readonly results: ResultCache;
  /** Each resource's first record key: a record's key is its resource's base plus its position. */
  private readonly keyBase: Record<ResourceName, number>;
  readonly stored: StoredReads;
  /** The compiled dataset is fixed for the life of the process. */
  readonly immutable = true;
  /** When the dataset was published (its `last_modified`): the dataset's version in the metrics. */
  readonly lastModified: string;
  private readonly store: SectionStore;

  /** @param pieces the budget for the pieces kept once read (`DEFAULT_PIECE_BYTES` by default). */
  constructor(from: Dataset | SectionStore, pieces: PieceCache = new PieceCache()) {
    const store = 'meta' in from && 'load' in from ? from : memoryStore(compileDataset(from));
    this.store = store;
    this.lastModified = store.meta.last_modified;
    this.resources = Object.fromEntries(RESOURCE_NAMES.map((r, slot) => [r, new CompiledResource(store, r, store.meta.resources[r]!, pieces, slot)])) as Record<
      ResourceName,
      CompiledResource
    >;
    this.results = new ResultCache(this.resources);
    this.keyBase = {} as Record<ResourceName, number>;
    let next = 0;
    for (const r of RESOURCE_NAMES) {
      this.keyBase[r] = next;
      next += this.resources[r].count;
    }
    this.stored = { list: (r, q, s) => this.storedList(r, q, s), get: (r, id) => this.storedGet(r, id) };
  }

  /**
   * Ready while every read of the dataset came back whole; once one came back short (its file cut
   * or replaced while open) not ready, under the name `dataset`, as a backend that cannot be
   * reached: a balancer sends elsewhere rather than to a gateway whose data requests fail.
   */
  async ready(): Promise<Readiness> {
    const damage = this.store.damage?.();
    if (damage === undefined) return { ready: true, report: { mode: 'bundled' } };
    return { ready: false, report: { mode: 'bundled', dataset: { readable: false, problem: 'svc/datasetUnavailable' } } };
  }

  /** Record counts, for the start-up log. */
  counts(): Record<ResourceName, number> {
    return Object.fromEntries(RESOURCE_NAMES.map((r) => [r, this.resources[r].count])) as Record<ResourceName, number>;
  }

  async list(resource: ResourceName, query: ListQuery, scope: Scope | undefined): Promise<ListPage | undefined> {
    const page = await this.storedList(resource, query, scope);
    return page && { ...page, items: page.items.map((r) => r.parse() as AnyRecord) };
  }

  async get(resource: ResourceName, id: string): Promise<Detail | undefined> {
    const found = await this.storedGet(resource, id);
    return found && { record: found.record.parse() as AnyRecord, meta: found.meta };
  }

  private async storedList(resource: ResourceName, query: ListQuery, scope: Scope | undefined): Promise<StoredPage | undefined> {
    let parentAt: number | undefined;
    if (scope) {
      parentAt = await this.resources[scope.parent].position(scope.id);
      if (parentAt === undefined) return undefined;
    }
    const offset = (query.page - 1) * PAGE_SIZE;
    const { positions, total } = await this.results.window(resource, query, scope && { parent: scope.parent, at: parentAt! }, offset, PAGE_SIZE);
    const [term] = query.order;
    // A page of one field's stored order near its start: its records are stored in that order too.
    const inOrder =
      !scope && query.q === undefined && query.order.length === 1
        ? await sortedRecords(this.resources[resource], term!.field, term!.direction, offset, PAGE_SIZE)
        : undefined;
    const bytes = inOrder ?? (await this.resources[resource].records(positions));
    const base = this.keyBase[resource];
    return { items: bytes.map((b, i) => new RawJson(b, base + positions[i]!)), total, page: query.page, perPage: PAGE_SIZE };
  }

  private async storedGet(resource: ResourceName, id: string): Promise<StoredDetail | undefined> {
    const compiled = this.resources[resource];
    const at = await locate(compiled, id);
    if (at === undefined) return undefined;
    const found = await compiled.record(at);
    return { record: new RawJson(found.bytes, this.keyBase[resource] + at), meta: { last_modified: found.lastModified, ...found.counts }, etag: found.etag };
  }
}
