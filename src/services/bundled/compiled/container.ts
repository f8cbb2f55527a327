/**
 * The compiled dataset's container: a small JSON header naming typed sections, then the sections,
 * each 8-byte aligned so a reader views them in place (no copy, no parse). Layout:
 * `BOTD` | u32 header length | header (UTF-8 JSON) | sections.
 */

const MAGIC = 0x44544f42; // "BOTD", little-endian
const ALIGN = 8;

export type SectionType = 'u8' | 'u16' | 'u32' | 'f64';
export type SectionData = Uint8Array | Uint16Array | Uint32Array | Float64Array;

export interface SectionEntry {
  type: SectionType;
  offset: number;
  length: number;
}

export interface Header<M> {
  meta: M;
  sections: Record<string, SectionEntry>;
}

/** The section type of a typed array. */
export const sectionTypeOf = (data: SectionData): SectionType =>
  data instanceof Uint8Array ? 'u8' : data instanceof Uint16Array ? 'u16' : data instanceof Uint32Array ? 'u32' : 'f64';

const align = (n: number) => Math.ceil(n / ALIGN) * ALIGN;

/** Writes `meta` and the named sections into one buffer. */
export function writeContainer<M>(meta: M, sections: Record<string, SectionData>): Uint8Array {
  const entries: Record<string, SectionEntry> = {};
  let at = 0;
  for (const [name, data] of Object.entries(sections)) {
    entries[name] = { type: sectionTypeOf(data), offset: at, length: data.length };
    at = align(at + data.byteLength);
  }
  const header = new TextEncoder().encode(JSON.stringify({ meta, sections: entries } satisfies Header<M>));
  const start = align(8 + header.byteLength);
  const out = new Uint8Array(start + at);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, header.byteLength, true);
  out.set(header, 8);
  for (const [name, data] of Object.entries(sections)) {
    out.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), start + entries[name]!.offset);
  }
  return out;
}

/** Bytes at the front of a container: the magic and the header's length. */
const PREAMBLE = 8;

/** The typed array of each section type. */
export const TYPED = { u8: Uint8Array, u16: Uint16Array, u32: Uint32Array, f64: Float64Array } as const;

/** A section's size in bytes. */
export const byteLengthOf = (entry: SectionEntry): number => entry.length * TYPED[entry.type].BYTES_PER_ELEMENT;

/** The entry of section `name`, or an error naming it. */
export function entryOf(header: Header<unknown>, name: string): SectionEntry {
  const entry = header.sections[name];
  if (!entry) throw new Error(`compiled dataset has no section ${name}`);
  return entry;
}

/**
 * Checks that every section of `header` lies within a container of `size` bytes whose sections
 * begin at `start`: a file cut short is found when it is opened, not by the request that reads past its end.
 */
export function checkBounds(header: Header<unknown>, start: number, size: number): void {
  for (const [name, entry] of Object.entries(header.sections)) {
    const end = start + entry.offset + byteLengthOf(entry);
    if (entry.offset < 0 || end > size) throw new Error(`section ${name} ends at byte ${end}, past the end of the file (${size} bytes)`);
  }
}

/** A container's header from its first bytes, or how many bytes hold the whole of it. */
function parseHeader<M>(front: Uint8Array): { header: Header<M>; start: number } | { needed: number } {
  const view = new DataView(front.buffer, front.byteOffset, front.byteLength);
  if (front.byteLength < PREAMBLE || view.getUint32(0, true) !== MAGIC) throw new Error('not a compiled dataset');
  const length = view.getUint32(4, true);
  if (front.byteLength < PREAMBLE + length) return { needed: PREAMBLE + length };
  const header = JSON.parse(new TextDecoder().decode(front.subarray(PREAMBLE, PREAMBLE + length))) as Header<M>;
  return { header, start: align(PREAMBLE + length) };
}

/**
 * A container's header read through `read(from, to)` (a file, part of a piece): `guess` bytes
 * first, the rest of the header only when it is longer. `front` is what was read; `start` is where
 * the sections begin.
 */
export function readHeader<M>(read: (from: number, to: number) => Uint8Array, guess = PREAMBLE): { header: Header<M>; start: number; front: Uint8Array } {
  let front = read(0, Math.max(guess, PREAMBLE));
  let parsed = parseHeader<M>(front);
  if ('needed' in parsed) parsed = parseHeader<M>((front = read(0, parsed.needed)));
  if ('needed' in parsed) throw new Error('compiled dataset header is cut short');
  return { ...parsed, front };
}

/**
 * Reads the header of a container and views its sections in place (copying only if misaligned),
 * each view made once. `bytes` may be only the front of the container (a piece's head read from
 * a file): the sections within it can be viewed.
 */
export function readContainer<M>(bytes: Uint8Array): { meta: M; names: string[]; section(name: string): SectionData } {
  const read = parseHeader<M>(bytes);
  if ('needed' in read) throw new Error('compiled dataset header is cut short');
  const { header, start } = read;
  const aligned = bytes.byteOffset % ALIGN === 0 ? bytes : bytes.slice();
  const views = new Map<string, SectionData>();
  const open = (name: string): SectionData => {
    const entry = entryOf(header, name);
    return new TYPED[entry.type](aligned.buffer as ArrayBuffer, aligned.byteOffset + start + entry.offset, entry.length);
  };
  return {
    meta: header.meta,
    names: Object.keys(header.sections),
    section(name) {
      let known = views.get(name);
      if (!known) views.set(name, (known = open(name)));
      return known;
    },
  };
}
