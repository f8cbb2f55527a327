import { fold } from '../../../core/text';
import type { AnyRecord } from '../../record-source';
import { GRAM, gramKey, shortKey } from '../compiled/layout';

/** The search index of one resource. */
export interface BuiltSearch {
  /** Sorted keys: every three-unit gram of folded text, then every one- and two-unit piece (never across two fields). */
  keys: Float64Array;
  /** Key `k`'s postings are `postings[starts[k]..starts[k+1]]` (see `buildSearch`). */
  starts: Uint32Array;
  postings: Uint8Array;
}

/**
 * Stage 3c: an index that answers any `q` from its postings alone, so a search never reads the
 * records' text and its total needs no check. The folding is `fold` of src/core/text.ts, the same
 * the request side applies to `q`.
 *
 * - A piece of one or two units keys the ascending positions of the records holding it (LEB128
 *   gaps): the whole answer to a needle that short.
 * - A three-unit gram keys, for each record holding it (ascending, LEB128 gap), how often and
 *   where: its count, then its offsets (the first as is, then gaps). An offset counts UTF-16 units
 *   of the record's folded fields as if joined by one unit, so no gram, and no run of grams that
 *   touch, spans two fields: a needle matches where the grams covering it sit at their offsets.
 */
export function buildSearch(records: readonly AnyRecord[], searchable: (r: AnyRecord) => Array<string | null>): BuiltSearch {
  // Keyed while building by what hashes fast: the text of a gram, the units of a shorter piece
  // (`a` alone, `(a + 1) * 2^16 + b` for two: a small integer for any text below U+4000).
  const short = new Map<number, number[]>();
  const grams = new Map<string, number[]>();
  records.forEach((record, i) => {
    const fields = searchable(record)
      .filter((t): t is string => !!t)
      .map(fold);
    const pieces = new Set<number>();
    const here = new Map<string, number[]>();
    let base = 0;
    for (const field of fields) {
      for (let at = 0; at < field.length; at++) {
        const a = field.charCodeAt(at);
        pieces.add(a);
        if (at + 1 < field.length) pieces.add((a + 1) * 0x10000 + field.charCodeAt(at + 1));
        if (at + GRAM > field.length) continue;
        const gram = field.substr(at, GRAM);
        const offsets = here.get(gram);
        if (offsets) offsets.push(base + at);
        else here.set(gram, [base + at]);
      }
      base += field.length + 1;
    }
    for (const piece of pieces) {
      const list = short.get(piece);
      if (list) list.push(i);
      else short.set(piece, [i]);
    }
    for (const [gram, offsets] of here) {
      let list = grams.get(gram);
      if (!list) grams.set(gram, (list = []));
      list.push(i, offsets.length);
      for (const offset of offsets) list.push(offset);
    }
  });

  const byKey = new Map<number, { short?: number[]; gram?: number[] }>();
  for (const [gram, list] of grams) byKey.set(gramKey(gram, 0), { gram: list });
  for (const [piece, list] of short) {
    const text = piece < 0x10000 ? String.fromCharCode(piece) : String.fromCharCode(Math.floor(piece / 0x10000) - 1, piece % 0x10000);
    byKey.set(shortKey(text, 0, text.length), { short: list });
  }
  const keys = Float64Array.from(byKey.keys()).sort();
  const starts = new Uint32Array(keys.length + 1);
  const bytes: number[] = [];
  const write = (n: number) => {
    while (n >= 0x80) {
      bytes.push((n & 0x7f) | 0x80);
      n >>>= 7;
    }
    bytes.push(n);
  };
  keys.forEach((key, k) => {
    let previous = -1;
    const { short: list, gram: entries } = byKey.get(key)!;
    if (list) {
      for (const position of list) {
        write(position - previous);
        previous = position;
      }
    } else {
      for (let e = 0; e < entries!.length; ) {
        const position = entries![e++]!;
        const count = entries![e++]!;
        write(position - previous);
        previous = position;
        write(count);
        let at = 0;
        for (let n = 0; n < count; n++) {
          const offset = entries![e++]!;
          write(offset - at);
          at = offset;
        }
      }
    }
    starts[k + 1] = bytes.length;
  });
  return { keys, starts, postings: Uint8Array.from(bytes) };
}
