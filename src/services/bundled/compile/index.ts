import type { Dataset } from '../../../core/records';
import { RESOURCE_NAMES } from '../../../core/resources';
import { writeContainer, type SectionData } from '../compiled/container';
import {
  FORMAT,
  ID_CHUNK,
  ORDER_CHUNK,
  POSTINGS_CHUNK_BYTES,
  RECORD_CHUNK,
  SORTED_CHUNK,
  section,
  type CompiledMeta,
  type ResourceMeta,
} from '../compiled/layout';
import { buildChildren, buildOrders } from './orders';
import { buildRecords, type BuiltRecords } from './records';
import { buildSearch } from './search-index';
import { resourceSpecs } from './spec';

/** Byte-range pieces `[offsets[from], offsets[to])` of `bytes`, with offsets made local. */
function slice(bytes: Uint8Array, offsets: Uint32Array, from: number, to: number): { bytes: Uint8Array; offsets: Uint32Array } {
  const base = offsets[from]!;
  return { bytes: bytes.subarray(base, offsets[to]!), offsets: offsets.slice(from, to + 1).map((o) => o - base) };
}

/** The records at `positions` (of `json`, record `i` at `offsets[i]..offsets[i+1]`), back to back in that order. */
function inOrder(json: Uint8Array, offsets: Uint32Array, positions: Uint32Array): { json: Uint8Array; offsets: Uint32Array } {
  const local = new Uint32Array(positions.length + 1);
  positions.forEach((p, i) => {
    local[i + 1] = local[i]! + offsets[p + 1]! - offsets[p]!;
  });
  const out = new Uint8Array(local[positions.length]!);
  positions.forEach((p, i) => {
    out.set(json.subarray(offsets[p]!, offsets[p + 1]!), local[i]!);
  });
  return { json: out, offsets: local };
}

/** Splits `count` items into chunks of `size`, calling `write(k, from, to)` for each. */
function chunks(count: number, size: number, write: (k: number, from: number, to: number) => void): void {
  for (let k = 0; k * size < count; k++) write(k, k * size, Math.min((k + 1) * size, count));
}

/**
 * Splits `count` items into chunks of about `budget` bytes (`bytes(i)` each; an item larger than
 * the budget is a chunk of its own), calling `write(k, from, to)` for each.
 */
function chunksOfBytes(count: number, bytes: (i: number) => number, budget: number, write: (k: number, from: number, to: number) => void): void {
  let k = 0;
  let from = 0;
  let size = 0;
  for (let i = 0; i < count; i++) {
    if (i > from && size + bytes(i) > budget) {
      write(k++, from, i);
      from = i;
      size = 0;
    }
    size += bytes(i);
  }
  if (count > from) write(k, from, count);
}

/**
 * The compiler: the dataset (stage 1, read by the caller) into the artifact both runtimes open
 * without parsing. Stage 2 serializes the records, stage 3 builds orders, child lists and the
 * search structure, stage 4 (here) writes the container, in chunks a piece-by-piece reader can
 * fetch alone. `inputs` identifies what it was built from.
 */
export function compileDataset(dataset: Dataset, inputs = ''): Uint8Array {
  const specs = resourceSpecs(dataset);
  const built = {} as Record<string, BuiltRecords>;
  for (const resource of RESOURCE_NAMES) built[resource] = buildRecords(specs[resource], dataset.dataset.last_modified);

  const sections: Record<string, SectionData> = {};
  const resources: Record<string, ResourceMeta> = {};
  const encoder = new TextEncoder();
  for (const resource of RESOURCE_NAMES) {
    const spec = specs[resource];
    const { records, ids, json, offsets, etags, lastModified, counts } = built[resource]!;
    chunks(records.length, RECORD_CHUNK, (k, from, to) => {
      const part = slice(json, offsets, from, to);
      // The JSON last: a reader of part of a piece keeps the head (validators, offsets) and reads records as needed.
      sections[section.records(resource, k)] = writeContainer(null, {
        offsets: part.offsets,
        etags: etags.subarray(2 * from, 2 * to),
        lastModified: lastModified.subarray(from, to),
        ...Object.fromEntries(Object.entries(counts).map(([name, values]) => [`count.${name}`, values.subarray(from, to)])),
        json: part.bytes,
      });
    });

    const byId = Uint32Array.from(ids.keys()).sort((a, b) => (ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : 0));
    const idFences: string[] = [];
    chunks(byId.length, ID_CHUNK, (k, from, to) => {
      const positions = byId.subarray(from, to);
      const texts = [...positions].map((p) => encoder.encode(ids[p]!));
      const idOffsets = new Uint32Array(texts.length + 1);
      texts.forEach((t, i) => {
        idOffsets[i + 1] = idOffsets[i]! + t.byteLength;
      });
      const text = new Uint8Array(idOffsets[texts.length]!);
      texts.forEach((t, i) => {
        text.set(t, idOffsets[i]!);
      });
      idFences.push(ids[positions[0]!]!);
      sections[section.ids(resource, k)] = writeContainer(null, { text, offsets: idOffsets, positions });
    });

    const sortedCopies = Math.min(ORDER_CHUNK, records.length);
    for (const [field, order] of Object.entries(buildOrders(records, spec.sortable))) {
      sections[section.ranks(resource, field)] = order.ranks;
      for (const direction of ['asc', 'desc'] as const) {
        chunks(records.length, ORDER_CHUNK, (k, from, to) => (sections[section.order(resource, field, direction, k)] = order[direction].subarray(from, to)));
        chunks(sortedCopies, SORTED_CHUNK, (k, from, to) => {
          sections[section.sorted(resource, field, direction, k)] = writeContainer(null, inOrder(json, offsets, order[direction].subarray(from, to)));
        });
      }
    }
    for (const [parent, read] of Object.entries(spec.parents)) {
      const children = buildChildren(records, read!, built[parent]!.ids, parent as keyof typeof specs);
      sections[section.childStart(resource, parent)] = children.start;
      sections[section.children(resource, parent)] = children.positions;
    }

    const search = buildSearch(records, spec.searchable);
    const gramFences: number[] = [];
    // A gram's share of its chunk: its postings, its key (f64) and its start (u32).
    const gramBytes = (i: number) => search.starts[i + 1]! - search.starts[i]! + 12;
    chunksOfBytes(search.keys.length, gramBytes, POSTINGS_CHUNK_BYTES, (k, from, to) => {
      const part = slice(search.postings, search.starts, from, to);
      gramFences.push(search.keys[from]!);
      sections[section.postings(resource, k)] = writeContainer(null, { keys: search.keys.subarray(from, to), starts: part.offsets, postings: part.bytes });
    });
    resources[resource] = {
      count: records.length,
      idFences,
      recordFences: ids.filter((_, i) => i % RECORD_CHUNK === 0),
      gramFences,
      sortable: [...spec.sortable],
      sortedCopies,
      parents: Object.keys(spec.parents),
      counts: Object.keys(counts),
    };
  }
  const meta: CompiledMeta = { format: FORMAT, inputs, last_modified: dataset.dataset.last_modified, resources };
  return writeContainer(meta, sections);
}
