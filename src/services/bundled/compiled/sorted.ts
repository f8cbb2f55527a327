import { SORTED_CHUNK, section } from './layout';
import type { CompiledResource } from './resource';

/**
 * The stored bytes of the records at positions `[offset, offset + limit)` of one field's stored
 * order, read from the copies of its first positions in that order (one piece a page, where the
 * records' own chunks are scattered over the whole resource); undefined for a window beyond them,
 * and for `id`, whose order is the records' own. The copies are the records' stored bytes.
 */
export async function sortedRecords(
  resource: CompiledResource,
  field: string,
  direction: 'asc' | 'desc',
  offset: number,
  limit: number,
): Promise<Uint8Array[] | undefined> {
  const end = Math.min(offset + limit, resource.count);
  if (field === 'id' || offset >= end || end > (resource.meta.sortedCopies ?? 0)) return undefined;
  const first = Math.floor(offset / SORTED_CHUNK);
  const last = Math.floor((end - 1) / SORTED_CHUNK);
  const parts = await resource.parts(
    (k) => section.sorted(resource.name, field, direction, k),
    Array.from({ length: last - first + 1 }, (_, i) => first + i),
  );
  const out: Uint8Array[] = [];
  for (let at = offset; at < end; at++) {
    const part = parts.get(Math.floor(at / SORTED_CHUNK))!;
    const json = part.section('json') as Uint8Array;
    const offsets = part.section('offsets') as Uint32Array;
    const local = at % SORTED_CHUNK;
    out.push(json.subarray(offsets[local]!, offsets[local + 1]!));
  }
  return out;
}
