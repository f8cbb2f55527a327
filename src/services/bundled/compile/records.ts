import { idCollator } from '../../../core/text';
import type { AnyRecord } from '../../record-source';
import { fnv64Hex } from '../../../core/hash';
import type { ResourceSpec } from './spec';

/** One resource's records as the artifact stores them, in default (numeric-aware id) order. */
export interface BuiltRecords {
  records: AnyRecord[];
  ids: string[];
  /** The canonical JSON of every record, back to back; record `i` is `offsets[i]..offsets[i+1]`. */
  json: Uint8Array;
  offsets: Uint32Array;
  /** The v2 detail body's hash, 64 bits as two u32 per record: the ETag without hashing per request. */
  etags: Uint32Array;
  /** Last modification of each record, in seconds since the epoch. */
  lastModified: Uint32Array;
  counts: Record<string, Uint32Array>;
}

/** Stage 2: every record serialized once, with its validators and detail counts. */
export function buildRecords(spec: ResourceSpec, lastModified: string): BuiltRecords {
  const records = [...spec.records].sort((a, b) => idCollator.compare(a.id, b.id));
  const encoder = new TextEncoder();
  const parts = records.map((r) => encoder.encode(JSON.stringify(r)));
  const offsets = new Uint32Array(records.length + 1);
  parts.forEach((p, i) => {
    offsets[i + 1] = offsets[i]! + p.byteLength;
  });
  const json = new Uint8Array(offsets[records.length]!);
  parts.forEach((p, i) => {
    json.set(p, offsets[i]!);
  });

  const counts = Object.fromEntries(Object.entries(spec.detailCounts).map(([name, read]) => [name, Uint32Array.from(records, read)]));
  const seconds = Math.floor(Date.parse(lastModified) / 1000);
  const etags = new Uint32Array(records.length * 2);
  records.forEach((record, i) => {
    const meta = { last_modified: lastModified, ...Object.fromEntries(Object.entries(counts).map(([name, values]) => [name, values[i]])) };
    const [hi, lo] = fnv64Hex(encoder.encode(JSON.stringify({ data: record, meta })));
    etags[2 * i] = hi;
    etags[2 * i + 1] = lo;
  });
  return { records, ids: records.map((r) => r.id), json, offsets, etags, lastModified: new Uint32Array(records.length).fill(seconds), counts };
}
