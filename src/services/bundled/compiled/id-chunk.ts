/** The id index of a compiled resource: chunks of ids in order, found by their fences. */
import { readContainer, type SectionData } from './container';

const decoder = new TextDecoder();

export /** A chunk of the id index with its ids decoded once, so a lookup compares strings and decodes nothing. */
interface IdChunk {
  ids: string[];
  positions: Uint32Array;
}

/** An id-index chunk piece, its ids decoded once. */
export function openIdChunk(bytes: SectionData): IdChunk {
  const part = readContainer<null>(bytes as Uint8Array);
  const text = part.section('text') as Uint8Array;
  const offsets = part.section('offsets') as Uint32Array;
  const positions = part.section('positions') as Uint32Array;
  const ids = Array.from({ length: positions.length }, (_, i) => decoder.decode(text.subarray(offsets[i]!, offsets[i + 1]!)));
  return { ids, positions };
}

/** The position of the record with `id` in `chunk`, by binary search, or undefined. */
export function positionIn({ ids, positions }: IdChunk, id: string): number | undefined {
  for (let lo = 0, hi = ids.length - 1; lo <= hi; ) {
    const mid = (lo + hi) >>> 1;
    const candidate = ids[mid]!;
    if (candidate === id) return positions[mid]!;
    if (candidate < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}
