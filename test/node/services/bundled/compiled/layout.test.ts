/**
 * Record chunks read in place from a file (Node) whose head, the part kept in memory (header,
 * offsets, validators, detail counts), is longer than the first read of a chunk: a dataset with
 * more detail counts, or longer names, than today's. Every record must still answer with its own
 * bytes, counts and validators, as the same container held in memory does.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readHeader, writeContainer, type SectionData } from '../../../../../src/services/bundled/compiled/container';
import { RECORD_CHUNK, section, type CompiledMeta, type ResourceMeta } from '../../../../../src/services/bundled/compiled/layout';
import { CompiledResource } from '../../../../../src/services/bundled/compiled/resource';
import { fileContainerStore, memoryStore } from '../../../../../src/services/bundled/compiled/store';

const dir = mkdtempSync(join(tmpdir(), 'record-heads-'));
const fds: number[] = [];
afterAll(() => {
  for (const fd of fds) closeSync(fd);
  rmSync(dir, { recursive: true, force: true });
});

const encoder = new TextEncoder();
const RESOURCE = 'specimens';
const COUNT = 40; // three chunks, the last one short

/** A resource of `COUNT` records with `counts` detail counts each, as one container file. */
function dataset(counts: string[]) {
  const records = Array.from({ length: COUNT }, (_, i) => ({ id: `S${i}`, name: `specimen ${i}`, note: 'é'.repeat(i) }));
  const countOf = (name: string, i: number) => i * 100 + counts.indexOf(name);
  const sections: Record<string, SectionData> = {};
  for (let k = 0; k * RECORD_CHUNK < COUNT; k++) {
    const chunk = records.slice(k * RECORD_CHUNK, (k + 1) * RECORD_CHUNK);
    const json = chunk.map((r) => encoder.encode(JSON.stringify(r)));
    const offsets = new Uint32Array(chunk.length + 1);
    json.forEach((bytes, i) => {
      offsets[i + 1] = offsets[i]! + bytes.length;
    });
    const parts: Record<string, SectionData> = {
      offsets,
      etags: Uint32Array.from({ length: 2 * chunk.length }, (_, i) => 0x1000 + k * 64 + i),
      lastModified: new Uint32Array(chunk.length).fill(Date.parse('2026-03-18T00:00:00Z') / 1000),
    };
    for (const name of counts) parts[`count.${name}`] = Uint32Array.from(chunk, (_, i) => countOf(name, k * RECORD_CHUNK + i));
    // The JSON last: the head is everything before it.
    const all = new Uint8Array(offsets[chunk.length]!);
    for (const [i, bytes] of json.entries()) all.set(bytes, offsets[i]!);
    parts.json = all;
    sections[section.records(RESOURCE, k)] = writeContainer(null, parts);
  }
  const resource: ResourceMeta = {
    count: COUNT,
    idFences: [],
    recordFences: [],
    gramFences: [],
    sortable: ['id'],
    sortedCopies: 0,
    parents: [],
    counts,
  };
  const meta: CompiledMeta = { format: 0, inputs: '', last_modified: '2026-03-18T00:00:00Z', resources: { [RESOURCE]: resource } };
  const bytes = writeContainer(meta, sections);
  const path = join(dir, `${counts.length}-${counts[0]?.length ?? 0}.bin`);
  writeFileSync(path, bytes);
  const fd = openSync(path, 'r');
  fds.push(fd);
  // As the Node entry reads its file: positioned reads into buffers of their own.
  const file = fileContainerStore({
    size: bytes.byteLength,
    readAt(offset, length) {
      const out = Buffer.allocUnsafeSlow(length);
      expect(readSync(fd, out, 0, length, offset)).toBe(length);
      return out;
    },
  });
  const memory = memoryStore(bytes);
  /** How long the head of chunk 0 is: where its JSON begins. */
  const chunk0 = sections[section.records(RESOURCE, 0)] as Uint8Array;
  const { header, start } = readHeader<null>((from, to) => chunk0.subarray(from, to));
  const headLength = start + header.sections.json!.offset;
  const headerLength = new DataView(chunk0.buffer, chunk0.byteOffset).getUint32(4, true);
  return {
    records,
    countOf,
    headLength,
    headerLength,
    file: new CompiledResource(file, RESOURCE, resource),
    memory: new CompiledResource(memory, RESOURCE, resource),
  };
}

describe('record chunks read in place whose head is longer than the first read', () => {
  const cases: Array<[string, string[], (d: ReturnType<typeof dataset>) => void]> = [
    [
      'the head longer than 1,024 bytes, its header shorter',
      Array.from({ length: 12 }, (_, i) => `c${i}`),
      (d) => {
        expect(d.headLength).toBeGreaterThan(1024);
        expect(d.headerLength).toBeLessThan(1024);
      },
    ],
    [
      'the header itself longer than 1,024 bytes (long count names)',
      Array.from({ length: 6 }, (_, i) => `count_with_a_rather_long_name_number_${i}_${'x'.repeat(80)}`),
      (d) => expect(d.headerLength).toBeGreaterThan(1024),
    ],
    ['a head shorter than the first read, as today', ['synonyms_count', 'sources_count'], (d) => expect(d.headLength).toBeLessThan(1024)],
  ];

  it.each(cases)('%s: every record answers its bytes, counts and validators', async (_name, counts, shape) => {
    const d = dataset(counts);
    shape(d);
    for (let at = 0; at < COUNT; at++) {
      const [fromFile, fromMemory] = [await d.file.record(at), await d.memory.record(at)];
      expect(JSON.parse(new TextDecoder().decode(fromFile.bytes)), `record ${at}`).toEqual(d.records[at]);
      expect(fromFile.counts, `record ${at}`).toEqual(Object.fromEntries(counts.map((name) => [name, d.countOf(name, at)])));
      expect(fromFile.lastModified).toBe('2026-03-18T00:00:00Z');
      expect({ ...fromFile, bytes: [...fromFile.bytes] }, `record ${at}`).toEqual({ ...fromMemory, bytes: [...fromMemory.bytes] });
    }
    const every = Array.from({ length: COUNT }, (_, i) => COUNT - 1 - i);
    const pages = (await d.file.records(every)).map((bytes) => JSON.parse(new TextDecoder().decode(bytes)).id);
    expect(pages).toEqual(every.map((i) => `S${i}`));
  });
});
