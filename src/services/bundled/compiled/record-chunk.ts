/**
 * A record chunk of a compiled resource: the JSON of up to `RECORD_CHUNK` records back to back,
 * with their offsets, validators and detail counts (src/services/bundled/compiled/layout.ts).
 */
import { hex64 } from '../../../core/hash';
import { readContainer, readHeader } from './container';

/** A chunk piece: a small container of its own. */
export type Part = ReturnType<typeof readContainer<null>>;

export interface RecordChunk {
  /** The JSON of the chunk's records `[from, to)`, back to back. */
  json(from: number, to: number): Uint8Array;
  offsets: Uint32Array;
  etags: Uint32Array;
  lastModified: Uint32Array;
  /** One array per name of `ResourceMeta.counts`, in that order. */
  counts: Uint32Array[];
}

/** A record's stored bytes with its validators and detail counts. */
export interface StoredRecord {
  bytes: Uint8Array;
  etag: string;
  lastModified: string;
  counts: Record<string, number>;
}

const instants = new Map<number, string>();
/** Seconds as RFC 3339 UTC (`2026-03-18T00:00:00Z`); records share a handful of instants, so each is formatted once. */
function rfc3339(seconds: number): string {
  let text = instants.get(seconds);
  if (text === undefined) {
    text = new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
    if (instants.size < 4096) instants.set(seconds, text);
  }
  return text;
}

/** Bytes read at first from a record chunk: its header and every section before the JSON (about 700 bytes). */
const HEAD_GUESS = 1024;

/**
 * A record chunk's head (its header and every section before the JSON), read through
 * `read(from, to)`: one read, more only when the head is longer than guessed, kept in a buffer of
 * its own size; and where the JSON begins.
 */
export function headOf(read: (from: number, to: number) => Uint8Array): { head: Part; jsonAt: number } {
  const { header, start, front } = readHeader<null>(read, HEAD_GUESS);
  const jsonAt = start + header.sections.json!.offset;
  const bytes = front.byteLength < jsonAt ? read(0, jsonAt) : front.subarray(0, jsonAt);
  return { head: readContainer<null>(new Uint8Array(bytes)), jsonAt };
}

/** A record chunk over `part`'s sections; `json(from, to)` reads the bytes `[from, to)` of its JSON. */
export function recordChunkOf(part: Part, json: (from: number, to: number) => Uint8Array, countNames: readonly string[]): RecordChunk {
  const offsets = part.section('offsets') as Uint32Array;
  return {
    json: (from, to) => json(offsets[from]!, offsets[to]!),
    offsets,
    etags: part.section('etags') as Uint32Array,
    lastModified: part.section('lastModified') as Uint32Array,
    counts: countNames.map((name) => part.section(`count.${name}`) as Uint32Array),
  };
}

/** Record `i` of `chunk` with its validators and detail counts (named by `countNames`). */
export function storedRecord(chunk: RecordChunk, i: number, countNames: readonly string[]): StoredRecord {
  const { json, etags, lastModified, counts } = chunk;
  const named: Record<string, number> = {};
  for (let n = 0; n < counts.length; n++) named[countNames[n]!] = counts[n]![i]!;
  return {
    bytes: json(i, i + 1),
    etag: hex64(etags[2 * i]!, etags[2 * i + 1]!),
    lastModified: rfc3339(lastModified[i]!),
    counts: named,
  };
}
