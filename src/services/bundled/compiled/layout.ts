/** Names and constants the compiler and the reader of the compiled dataset share. */

/** Bumped whenever the layout changes, so a stale artifact is rebuilt rather than misread. */
export const FORMAT = 8;

/**
 * Pieces: records, postings and the id index are stored in chunks, so a reader that fetches pieces
 * (Workers Static Assets) loads only the few a request touches.
 */
export const RECORD_CHUNK = 16;
/**
 * The gram index is chunked by size rather than by count: a search reads about one gram from each
 * chunk it fetches, and postings range from a few bytes to 10 KB, so chunks of 256 grams (up to
 * 136 KB) were almost all unused bytes. A gram larger than this is a chunk of its own.
 */
export const POSTINGS_CHUNK_BYTES = 8 * 1024;
export const ID_CHUNK = 1024;
export const ORDER_CHUNK = 1024;
/**
 * The records of the first `ORDER_CHUNK` positions of each stored order are also stored in that
 * order, 40 a piece (two pages): a page of a sorted list there reads one piece, where its records'
 * chunks are scattered (a page of 20 touched about 17 record chunks, 190 KB).
 */
export const SORTED_CHUNK = 40;

/** The rank of a null sort value: after every value, in either direction. */
export const NULL_RANK = 0xffffffff;

/** Search keys: three UTF-16 units of folded text packed in one float64 (48 bits, exact). */
export const GRAM = 3;
export const gramKey = (text: string, at: number) => text.charCodeAt(at) * 0x100000000 + text.charCodeAt(at + 1) * 0x10000 + text.charCodeAt(at + 2);
/** Keys of the pieces of one or two units, above every gram's: two units from 2^48, one unit from 2^48 + 2^32. */
export const shortKey = (text: string, at: number, length: number) =>
  length === 2 ? 0x1000000000000 + text.charCodeAt(at) * 0x10000 + text.charCodeAt(at + 1) : 0x1000100000000 + text.charCodeAt(at);

export interface ResourceMeta {
  count: number;
  /** The first id (code-unit order) of each chunk of the id index. */
  idFences: string[];
  /** The id of the first record of each record chunk (default order: numeric-aware, `idCollator`). */
  recordFences: string[];
  /** The first key of each chunk of the search index. */
  gramFences: number[];
  sortable: string[];
  /** How many of the first positions of each stored order (but `id`'s) have their records copied in order (`section.sorted`). */
  sortedCopies: number;
  parents: string[];
  counts: string[];
}

/** The artifact's header. */
export interface CompiledMeta {
  format: number;
  /** Digest of the inputs (source dataset and compiler), to tell a stale artifact. */
  inputs: string;
  last_modified: string;
  resources: Record<string, ResourceMeta>;
}

/** Section names of one resource. Chunks are small containers of their own. */
export const section = {
  /** Chunk `k` of records: `offsets` (local), `etags`, `lastModified`, `count.<name>`, then `json`. */
  records: (r: string, k: number) => `${r}.records.${k}`,
  /** Chunk `k` of the id index (ids in code-unit order): `text`, `offsets`, `positions`. */
  ids: (r: string, k: number) => `${r}.ids.${k}`,
  ranks: (r: string, field: string) => `${r}.ranks.${field}`,
  /** Chunk `k` of a field's order (`asc` or `desc`): positions `k*ORDER_CHUNK ..`. */
  order: (r: string, field: string, direction: string, k: number) => `${r}.order.${field}.${direction}.${k}`,
  /** Chunk `k` of the records in a field's order (first `sortedCopies` positions): `json`, `offsets` (local). */
  sorted: (r: string, field: string, direction: string, k: number) => `${r}.sorted.${field}.${direction}.${k}`,
  childStart: (r: string, parent: string) => `${r}.children.${parent}.start`,
  children: (r: string, parent: string) => `${r}.children.${parent}.positions`,
  /** Chunk `k` of the search index: `keys` (sorted), `starts` (local) and `postings` of the keys from `gramFences[k]` on. */
  postings: (r: string, k: number) => `${r}.grams.${k}`,
};
