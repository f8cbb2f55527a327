import { fold } from '../../../core/text';
import { GRAM, gramKey, SEARCH_CHUNK, section } from './layout';
import type { CompiledResource } from './resource';

const encoder = new TextEncoder();
const NONE = new Uint32Array(0);

/**
 * The positions (ascending) of the records whose folded search text holds folded `q` within one
 * field. A needle of three or more units reads the postings of its grams, starting with the
 * rarest, and checks only the records in all of them; a shorter one checks every record. Grams
 * never cross fields, and the byte joining fields in the text is never in a UTF-8 needle, so no
 * match spans two fields. A needle that folds to nothing matches nothing (the query parser
 * refuses one before it gets here).
 *
 * `checking`, when given, is called with the candidates (ascending) just before their search text
 * is read, so a caller can start reading what it will need of them in the same round; it cannot
 * change the answer. A needle of exactly one gram needs no check: its postings are the answer.
 */
export async function searchPositions(resource: CompiledResource, q: string, checking?: (candidates: readonly number[]) => void): Promise<Uint32Array> {
  const needle = fold(q);
  if (needle.length === 0) return NONE;
  const name = resource.name;
  const bytes = encoder.encode(needle);
  const chunkCount = Math.ceil(resource.count / SEARCH_CHUNK);
  if (needle.length < GRAM) {
    const everyRecord = Array.from({ length: resource.count }, (_, i) => i);
    checking?.(everyRecord);
    return check(resource, everyRecord, bytes, chunkCount);
  }

  // Each gram's postings chunk, found through the fences; the chunk holds its keys and offsets too.
  const fences = resource.meta.gramFences;
  const wanted: Array<{ key: number; chunk: number }> = [];
  for (let at = 0; at + GRAM <= needle.length; at++) {
    const key = gramKey(needle, at);
    const chunk = fence(fences, key);
    if (chunk < 0) return NONE;
    if (!wanted.some((w) => w.key === key)) wanted.push({ key, chunk });
  }
  const parts = await resource.parts(
    (k) => section.postings(name, k),
    wanted.map((w) => w.chunk),
  );
  const grams: Array<{ postings: Uint8Array; from: number; to: number }> = [];
  for (const { key, chunk } of wanted) {
    const part = parts.get(chunk)!;
    const starts = part.section('starts') as Uint32Array;
    const k = find(part.section('keys') as Float64Array, key);
    if (k < 0) return NONE;
    grams.push({ postings: part.section('postings') as Uint8Array, from: starts[k]!, to: starts[k + 1]! });
  }
  // Rarest first: the intersection only shrinks.
  grams.sort((a, b) => a.to - a.from - (b.to - b.from));
  const postings = (g: (typeof grams)[number]) => decode(g.postings, g.from, g.to);
  let candidates = postings(grams[0]!);
  for (const g of grams.slice(1)) {
    if (candidates.length === 0) break;
    candidates = intersect(candidates, postings(g));
  }
  // One gram is the whole needle: its postings are the answer. Longer needles are checked in place.
  if (needle.length === GRAM) return Uint32Array.from(candidates);
  checking?.(candidates);
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

/** The chunk whose first key (its fence) is the last one not above `key`; -1 before the first. */
function fence(fences: readonly number[], key: number): number {
  let found = -1;
  for (let lo = 0, hi = fences.length - 1; lo <= hi; ) {
    const mid = (lo + hi) >>> 1;
    if (fences[mid]! <= key) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
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
