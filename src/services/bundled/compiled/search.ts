import { fold } from '../../../core/text';
import { FIELD_SEPARATOR, GRAM, gramKey, section } from './layout';
import type { CompiledResource } from './resource';

const encoder = new TextEncoder();
const NONE = new Uint32Array(0);

/**
 * The positions (ascending) of the records whose folded search text holds folded `q` within one
 * field. A needle of three or more units reads the postings of its grams, starting with the
 * rarest, and checks only the records in all of them; a shorter one scans the search text. A
 * needle that folds to nothing, or holds the field separator, matches nothing: no match spans
 * two fields.
 */
export async function searchPositions(resource: CompiledResource, q: string): Promise<Uint32Array> {
  const needle = fold(q);
  if (needle.length === 0 || needle.includes(FIELD_SEPARATOR)) return NONE;
  const name = resource.name;
  const [text, offsets] = await Promise.all([resource.u8(section.searchText(name)), resource.u32(section.searchOffsets(name))]);
  const bytes = encoder.encode(needle);
  if (needle.length < GRAM) return scan(text, offsets, bytes);

  const [keys, starts, postings] = await Promise.all([
    resource.f64(section.gramKeys(name)),
    resource.u32(section.gramStarts(name)),
    resource.u8(section.postings(name)),
  ]);
  const lists: Array<[number, number]> = [];
  const seen = new Set<number>();
  for (let at = 0; at + GRAM <= needle.length; at++) {
    const key = gramKey(needle, at);
    if (seen.has(key)) continue;
    seen.add(key);
    const k = find(keys, key);
    if (k < 0) return NONE;
    lists.push([starts[k]!, starts[k + 1]!]);
  }
  lists.sort((a, b) => a[1] - a[0] - (b[1] - b[0]));
  let candidates = decode(postings, lists[0]![0], lists[0]![1]);
  for (const [from, to] of lists.slice(1)) {
    if (candidates.length === 0) break;
    candidates = intersect(candidates, postings, from, to);
  }
  // One gram is the whole needle: its postings are the answer. Longer needles are checked in place.
  if (needle.length === GRAM) return Uint32Array.from(candidates);
  return Uint32Array.from(candidates.filter((i) => contains(text, offsets[i]!, offsets[i + 1]!, bytes)));
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

/** Ascending positions from LEB128 gaps. */
function decode(postings: Uint8Array, from: number, to: number): number[] {
  const out: number[] = [];
  let position = -1;
  for (let i = from; i < to; ) {
    let gap = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = postings[i++]!;
      gap |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80);
    position += gap;
    out.push(position);
  }
  return out;
}

function intersect(sorted: number[], postings: Uint8Array, from: number, to: number): number[] {
  const other = decode(postings, from, to);
  const out: number[] = [];
  let j = 0;
  for (const p of sorted) {
    while (j < other.length && other[j]! < p) j++;
    if (j === other.length) break;
    if (other[j] === p) out.push(p);
  }
  return out;
}

/** Whether `text[from..to)` holds `needle` (UTF-8 is self-synchronising: byte matches are character matches). */
function contains(text: Uint8Array, from: number, to: number, needle: Uint8Array): boolean {
  const first = needle[0]!;
  const last = to - needle.length;
  for (let i = from; i <= last; i++) {
    if (text[i] !== first) continue;
    let k = 1;
    while (k < needle.length && text[i + k] === needle[k]) k++;
    if (k === needle.length) return true;
  }
  return false;
}

/** Every record holding `needle`, in one pass over the whole search text. */
function scan(text: Uint8Array, offsets: Uint32Array, needle: Uint8Array): Uint32Array {
  const out: number[] = [];
  let record = 0;
  for (let i = text.indexOf(needle[0]!); i >= 0; i = text.indexOf(needle[0]!, i + 1)) {
    while (offsets[record + 1]! <= i) record++;
    if (out[out.length - 1] === record) continue;
    if (contains(text, i, offsets[record + 1]!, needle)) out.push(record);
  }
  return Uint32Array.from(out);
}
