/** Names and constants the compiler and the reader of the compiled dataset share. */

/** Bumped whenever the layout changes, so a stale artifact is rebuilt rather than misread. */
export const FORMAT = 1;

/** Records per chunk of serialized records. */
export const CHUNK = 1024;

/** The rank of a null sort value: after every value, in either direction. */
export const NULL_RANK = 0xffffffff;

/** Separates the folded fields of one record's search text; a needle holding it matches nothing. */
export const FIELD_SEPARATOR = '\u0000';

/** Search keys: three UTF-16 units of folded text packed in one float64 (48 bits, exact). */
export const GRAM = 3;
export const gramKey = (text: string, at: number) => text.charCodeAt(at) * 0x100000000 + text.charCodeAt(at + 1) * 0x10000 + text.charCodeAt(at + 2);

export interface ResourceMeta {
  count: number;
  sortable: string[];
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

/** Section names of one resource. */
export const section = {
  ids: (r: string) => `${r}.ids`,
  idOffsets: (r: string) => `${r}.idOffsets`,
  jsonChunk: (r: string, k: number) => `${r}.json.${k}`,
  byId: (r: string) => `${r}.byId`,
  offsets: (r: string) => `${r}.offsets`,
  etags: (r: string) => `${r}.etags`,
  lastModified: (r: string) => `${r}.lastModified`,
  count: (r: string, name: string) => `${r}.count.${name}`,
  ranks: (r: string, field: string) => `${r}.ranks.${field}`,
  asc: (r: string, field: string) => `${r}.asc.${field}`,
  childStart: (r: string, parent: string) => `${r}.children.${parent}.start`,
  children: (r: string, parent: string) => `${r}.children.${parent}.positions`,
  searchText: (r: string) => `${r}.search.text`,
  searchOffsets: (r: string) => `${r}.search.offsets`,
  gramKeys: (r: string) => `${r}.search.keys`,
  gramStarts: (r: string) => `${r}.search.starts`,
  postings: (r: string) => `${r}.search.postings`,
};
