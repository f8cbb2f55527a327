import { fold } from '../../../core/text';
import { chunkOf } from './fences';
import { GRAM, gramKey, section, shortKey } from './layout';
import type { CompiledResource } from './resource';

const NONE = new Uint32Array(0);

/** One key the needle needs: where in the needle it sits, and its postings once read. */
interface Term {
  key: number;
  chunk: number;
  /** Offsets in the needle this gram must sit at. */
  at: number[];
}

/**
 * The positions (ascending) of the records whose folded fields hold folded `q` within one
 * field, from the search index alone (compile/search.ts), in one round of reads: the chunks of the
 * keys it needs. A needle of one or two units is one key, whose postings are the answer. A longer
 * one is covered by grams at offsets 0, 3, 6, ... and `length - 3`; a record matches where every
 * one of them sits at its offset. The grams of a cover overlap or touch, and no gram holds the unit
 * joining two fields, so such a match lies in one field: the answer is exact without reading any
 * text. A needle that folds to nothing matches nothing (the query parser refuses one before it
 * gets here).
 */
export async function searchPositions(resource: CompiledResource, q: string): Promise<Uint32Array> {
  const needle = fold(q);
  if (needle.length === 0) return NONE;
  const fences = resource.meta.gramFences;
  const terms: Term[] = [];
  const need = (key: number, at: number) => {
    const known = terms.find((t) => t.key === key);
    if (known) known.at.push(at);
    else terms.push({ key, chunk: chunkOf(fences, key), at: [at] });
  };
  if (needle.length < GRAM) need(shortKey(needle, 0, needle.length), 0);
  else {
    for (let at = 0; at < needle.length - GRAM; at += GRAM) need(gramKey(needle, at), at);
    need(gramKey(needle, needle.length - GRAM), needle.length - GRAM);
  }
  if (terms.some((t) => t.chunk < 0)) return NONE;

  const parts = await resource.parts(
    (k) => section.postings(resource.name, k),
    terms.map((t) => t.chunk),
  );
  const lists: Postings[] = [];
  for (const term of terms) {
    const part = parts.get(term.chunk)!;
    const starts = part.section('starts') as Uint32Array;
    const k = find(part.section('keys') as Float64Array, term.key);
    if (k < 0) return NONE;
    lists.push(new Postings(part.section('postings') as Uint8Array, starts[k]!, starts[k + 1]!, needle.length >= GRAM, term.at));
  }
  if (lists.length === 1 && lists[0]!.at.length === 1) return lists[0]!.records();
  return matches(lists);
}

/** The records where every list's gram sits at each of its needle offsets from one start. */
function matches(lists: Postings[]): Uint32Array {
  // The shortest first: it leads the walk, and the others skip to its records.
  lists.sort((a, b) => a.to - a.from - (b.to - b.from));
  const [lead, ...rest] = lists as [Postings, ...Postings[]];
  const out: number[] = [];
  while (lead.next()) {
    const record = lead.record;
    if (!rest.every((p) => p.seek(record))) {
      if (rest.some((p) => p.done)) break;
      continue;
    }
    if (aligned(lead, rest)) out.push(record);
  }
  return Uint32Array.from(out);
}

/** Whether one start puts every gram at every one of its offsets in the current record. */
function aligned(lead: Postings, rest: Postings[]): boolean {
  const anchor = lead.at[0]!;
  for (const offset of lead.offsets) {
    const start = offset - anchor;
    if (lead.at.every((d) => lead.offsets.includes(start + d)) && rest.every((p) => p.at.every((d) => p.offsets.includes(start + d)))) return true;
  }
  return false;
}

/**
 * A cursor over one key's postings: record positions (LEB128 gaps), each followed, for a gram, by
 * its count and offsets.
 */
class Postings {
  record = -1;
  done = false;
  readonly offsets: number[] = [];
  private i: number;

  constructor(
    private readonly bytes: Uint8Array,
    readonly from: number,
    readonly to: number,
    private readonly positional: boolean,
    readonly at: number[],
  ) {
    this.i = from;
  }

  private read(): number {
    const bytes = this.bytes;
    let n = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = bytes[this.i++]!;
      n |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80);
    return n;
  }

  /** Moves to the next record; false at the end. */
  next(): boolean {
    if (this.i >= this.to) {
      this.done = true;
      return false;
    }
    this.record += this.read();
    if (this.positional) {
      const count = this.read();
      this.offsets.length = 0;
      let at = 0;
      for (let n = 0; n < count; n++) this.offsets.push((at += this.read()));
    }
    return true;
  }

  /** Moves to the first record not before `record`; whether it is that one. */
  seek(record: number): boolean {
    while (this.record < record) if (!this.next()) return false;
    return this.record === record;
  }

  /** Every record of the list, from the start. */
  records(): Uint32Array {
    const out: number[] = [];
    while (this.next()) out.push(this.record);
    return Uint32Array.from(out);
  }
}

function find(keys: Float64Array, key: number): number {
  let lo = 0;
  let hi = keys.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = keys[mid]!;
    if (v === key) return mid;
    if (v < key) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
