/** The canonical (v2) terms of a collection request and of a page: what the core knows of them. */

export type ResourceName = 'species' | 'genus' | 'families' | 'plants';

export type JsonObject = Record<string, unknown>;

export interface OrderTerm {
  field: string;
  direction: 'asc' | 'desc';
}

/** A validated list request in canonical (v2) terms: pages of `PAGE_SIZE`. */
export interface ListQuery {
  q: string | undefined;
  order: OrderTerm[];
  page: number;
}

/** A page of a collection, in the terms of whichever version it has been walked to. */
export interface PageResult {
  items: JsonObject[];
  total: number;
  page: number;
  perPage: number;
}

/** The canonical page size (v2). */
export const PAGE_SIZE = 20;
