import { fold } from '../../../core/text';
import { FIELD_SEPARATOR, GRAM, gramKey, POSTINGS_CHUNK, SEARCH_CHUNK, section } from './layout';
import type { CompiledResource } from './resource';

const encoder = new TextEncoder();
const NONE = new Uint32Array(0);

/**
 * The positions (ascending) of the records whose folded search text holds folded `q` within one
 * field. A needle of three or more units reads the postings of its grams, starting with the
 * rarest, and checks only the records in all of them; a shorter one checks every record. A
 * needle that folds to nothing, or holds the field separator, matches nothing: no match spans
 * two fields.
 */
export async function searchPositions(resource: CompiledResource, q: string): Promise<Uint32Array> {
  const needle = fold(q);
  if (needle.length === 0 || needle.includes(FIELD_SEPARATOR)) return NONE;
  const name = resource.name;
  const bytes = encoder.encode(needle);
  const chunkCount = Math.ceil(resource.count / SEARCH_CHUNK);
  if (needle.length < GRAM) return check(resource, Array.from({ length: resource.count }, (_, i) => i), bytes, chunkCount);

  const [keys, starts] = await Promise.all([resource.f64(section.gramKeys(name)), resource.u32(section.gramStarts(name))]);
  const grams: number[] = [];
  for (let at = 0; at + GRAM <= needle.length; at++) {
    const k = find(keys, gramKey(needle, at));
    if (k < 0) return NONE;
    if (!grams.includes(k)) grams.push(k);
  }
  // Rarest first: the intersection only shrinks.
  grams.sort((a, b) => starts[a + 1]! - starts[a]! - (starts[b + 1]! - starts[b]!));
  const chunkOf = (k: number) => Math.floor(k / POSTINGS_CHUNK);
  const pieces = await Promise.all([...new Set(grams.map(chunkOf))].map(async (c) => [c, await resource.u8(section.postings(name, c))] as const));
  const piece = new Map(pieces);
  const postings = (k: number) => {
    const base = starts[chunkOf(k) * POSTINGS_CHUNK]!;
    return decode(piece.get(chunkOf(k))!, starts[k]! - base, starts[k + 1]! - base);
  };
  let candidates = postings(grams[0]!);
  for (const k of grams.slice(1)) {
    if (candidates.length === 0) break;
    candidates = intersect(candidates, postings(k));
  }
  // One gram is the whole needle: its postings are the answer. Longer needles are checked in place.
  if (needle.length === GRAM) return Uint32Array.from(candidates);
  return check(resource, candidates, bytes, chunkCount);
}

/** The candidates whose search text holds `needle`, reading only the search chunks they are in. */
async function check(resource: CompiledResource, candidates: number[], needle: Uint8Array, chunkCount: number): Promise<Uint32Array> {
  const chunks = candidates.length >= resource.count ? Array.from({ length: chunkCount }, (_, k) => k) : candidates.map((i) => Math.floor(i / SEARCH_CHUNK));
  const parts = await resource.parts((k) => section.search(resource.name, k), chunks);
  return Uint32Array.from(
    candidates.filter((i) => {
      const part = parts.get(Math.floor(i / SEARCH_CHUNK))!;
      const offsets = part.section('offsets') as Uint32Array;
      const local = i % SEARCH_CHUNK;
      return contains(part.section('text') as Uint8Array, offsets[local]!, offsets[local + 1]!, needle);
    }),
  );
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

function intersect(sorted: number[], other: number[]): number[] {
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
