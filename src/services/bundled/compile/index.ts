import type { Dataset } from '../../../core/records';
import { RESOURCE_NAMES } from '../../../core/resources';
import { writeContainer, type SectionData } from '../compiled/container';
import { CHUNK, FORMAT, section, type CompiledMeta, type ResourceMeta } from '../compiled/layout';
import { buildChildren, buildOrders } from './orders';
import { buildRecords, type BuiltRecords } from './records';
import { buildSearch } from './search';
import { resourceSpecs } from './spec';

/**
 * The compiler: the dataset (stage 1, read by the caller) into the artifact both runtimes open
 * without parsing. Stage 2 serializes the records, stage 3 builds orders, child lists and the
 * search structure, stage 4 writes the container. `inputs` identifies what it was built from.
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
    const idBytes = ids.map((id) => encoder.encode(id));
    const idOffsets = new Uint32Array(ids.length + 1);
    idBytes.forEach((b, i) => (idOffsets[i + 1] = idOffsets[i]! + b.byteLength));
    const idText = new Uint8Array(idOffsets[ids.length]!);
    idBytes.forEach((b, i) => idText.set(b, idOffsets[i]!));
    Object.assign(sections, {
      [section.ids(resource)]: idText,
      [section.idOffsets(resource)]: idOffsets,
      [section.offsets(resource)]: offsets,
      [section.etags(resource)]: etags,
      [section.lastModified(resource)]: lastModified,
    });
    // Records in chunks, so a reader that fetches pieces (Workers Static Assets) loads only the chunks a page touches.
    for (let k = 0; k * CHUNK < records.length; k++) {
      sections[section.jsonChunk(resource, k)] = json.subarray(offsets[k * CHUNK]!, offsets[Math.min((k + 1) * CHUNK, records.length)]!);
    }
    sections[section.byId(resource)] = Uint32Array.from(ids.keys()).sort((a, b) => (ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : 0));
    for (const [name, values] of Object.entries(counts)) sections[section.count(resource, name)] = values;
    for (const [field, order] of Object.entries(buildOrders(records, spec.sortable))) {
      sections[section.ranks(resource, field)] = order.ranks;
      sections[section.asc(resource, field)] = order.asc;
    }
    for (const [parent, read] of Object.entries(spec.parents)) {
      const children = buildChildren(records, read!, built[parent]!.ids, parent as keyof typeof specs);
      sections[section.childStart(resource, parent)] = children.start;
      sections[section.children(resource, parent)] = children.positions;
    }
    const search = buildSearch(records, spec.searchable);
    Object.assign(sections, {
      [section.searchText(resource)]: search.text,
      [section.searchOffsets(resource)]: search.offsets,
      [section.gramKeys(resource)]: search.keys,
      [section.gramStarts(resource)]: search.starts,
      [section.postings(resource)]: search.postings,
    });
    resources[resource] = { count: records.length, sortable: [...spec.sortable], parents: Object.keys(spec.parents), counts: Object.keys(counts) };
  }
  const meta: CompiledMeta = { format: FORMAT, inputs, last_modified: dataset.dataset.last_modified, resources };
  return writeContainer(meta, sections);
}
