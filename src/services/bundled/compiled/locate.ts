import { idCollator } from '../../../core/text';
import { RECORD_CHUNK } from './layout';
import type { CompiledResource } from './resource';

const encoder = new TextEncoder();
const COMMA = 0x2c;
const CLOSE = 0x7d;

/**
 * The position of the record with `id`. The record fences name the record chunk it would be in
 * (records are in default order, each chunk's first id is a fence); the chunk is read, as the
 * detail needs it anyway, and the record whose stored JSON opens with exactly this id is the one.
 * So a detail costs one read, none when its chunk is already held, where the id index would add
 * a read before it. The fences compare ids with this runtime's collator, which may differ from
 * the compiler's: an id not found where they point is looked up in the id index, which compares
 * code units and has the final word (an unknown id costs both reads). Where records are read in
 * place (Node), the id index, held once read, answers without a read, and the record alone is read
 * after it: the fences would only add one.
 */
export async function locate(resource: CompiledResource, id: string): Promise<number | undefined> {
  const fences = resource.readsInPlace ? undefined : resource.meta.recordFences;
  const k = fences ? lastFenceNotAfter(fences, id) : -1;
  if (k >= 0) {
    const from = k * RECORD_CHUNK;
    const positions = Array.from({ length: Math.min(RECORD_CHUNK, resource.count - from) }, (_, i) => from + i);
    const records = await resource.records(positions);
    // Records are stored as `JSON.stringify(record)`, `id` first: the bytes open with `{"id":<id>`.
    const opening = encoder.encode(`{"id":${JSON.stringify(id)}`);
    const i = records.findIndex((bytes) => opensWith(bytes, opening));
    if (i >= 0) return from + i;
  }
  return resource.position(id);
}

/** The chunk whose fence is the last one not after `id` in default order; -1 before the first. */
function lastFenceNotAfter(fences: readonly string[], id: string): number {
  let found = -1;
  for (let lo = 0, hi = fences.length - 1; lo <= hi; ) {
    const mid = (lo + hi) >>> 1;
    if (idCollator.compare(fences[mid]!, id) <= 0) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** Whether `bytes` opens with `opening` followed by the end of that member (`,` or `}`). */
function opensWith(bytes: Uint8Array, opening: Uint8Array): boolean {
  if (bytes.length <= opening.length) return false;
  for (let i = 0; i < opening.length; i++) if (bytes[i] !== opening[i]) return false;
  const next = bytes[opening.length];
  return next === COMMA || next === CLOSE;
}
