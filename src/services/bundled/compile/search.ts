import { fold } from '../../../core/text';
import type { AnyRecord } from '../../record-source';
import { FIELD_JOINER, GRAM, gramKey } from '../compiled/layout';

/** The search structure of one resource. */
export interface BuiltSearch {
  /** Each record's folded fields (UTF-8) joined by the byte FIELD_JOINER; record `i` is `offsets[i]..offsets[i+1]`. */
  text: Uint8Array;
  offsets: Uint32Array;
  /** Sorted keys of every three-unit gram of folded text (never across two fields). */
  keys: Float64Array;
  /** Gram `k`'s postings are `postings[starts[k]..starts[k+1]]`: ascending record positions as LEB128 gaps. */
  starts: Uint32Array;
  postings: Uint8Array;
}

/**
 * Stage 3c: the folded search text of every record, and a gram index over it, so a `q` reads the
 * postings of its grams instead of visiting every record. The folding is `fold` of src/core/text.ts,
 * the same the request side applies to `q`.
 */
export function buildSearch(records: readonly AnyRecord[], searchable: (r: AnyRecord) => Array<string | null>): BuiltSearch {
  const grams = new Map<number, number[]>();
  const encoder = new TextEncoder();
  const parts: Uint8Array[] = [];
  records.forEach((record, i) => {
    const fields = searchable(record)
      .filter((t): t is string => !!t)
      .map(fold);
    for (const field of fields) {
      for (let at = 0; at + GRAM <= field.length; at++) {
        const key = gramKey(field, at);
        const list = grams.get(key);
        if (!list) grams.set(key, [i]);
        else if (list[list.length - 1] !== i) list.push(i);
      }
    }
    parts.push(joined(fields.map((f) => encoder.encode(f))));
  });
  const offsets = new Uint32Array(records.length + 1);
  parts.forEach((p, i) => {
    offsets[i + 1] = offsets[i]! + p.byteLength;
  });
  const text = new Uint8Array(offsets[records.length]!);
  parts.forEach((p, i) => {
    text.set(p, offsets[i]!);
  });

  const keys = Float64Array.from(grams.keys()).sort();
  const starts = new Uint32Array(keys.length + 1);
  const bytes: number[] = [];
  keys.forEach((key, k) => {
    let previous = -1;
    for (const position of grams.get(key)!) {
      let gap = position - previous;
      previous = position;
      while (gap >= 0x80) {
        bytes.push((gap & 0x7f) | 0x80);
        gap >>>= 7;
      }
      bytes.push(gap);
    }
    starts[k + 1] = bytes.length;
  });
  return { text, offsets, keys, starts, postings: Uint8Array.from(bytes) };
}

/** The fields' bytes with FIELD_JOINER between them. */
function joined(fields: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(fields.reduce((n, f) => n + f.byteLength, Math.max(0, fields.length - 1)));
  let at = 0;
  fields.forEach((f, i) => {
    if (i > 0) out[at++] = FIELD_JOINER;
    out.set(f, at);
    at += f.byteLength;
  });
  return out;
}
