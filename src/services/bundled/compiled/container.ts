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

const typeOf = (data: SectionData): SectionType =>
  data instanceof Uint8Array ? 'u8' : data instanceof Uint16Array ? 'u16' : data instanceof Uint32Array ? 'u32' : 'f64';

const align = (n: number) => Math.ceil(n / ALIGN) * ALIGN;

/** Writes `meta` and the named sections into one buffer. */
export function writeContainer<M>(meta: M, sections: Record<string, SectionData>): Uint8Array {
  const entries: Record<string, SectionEntry> = {};
  let at = 0;
  for (const [name, data] of Object.entries(sections)) {
    entries[name] = { type: typeOf(data), offset: at, length: data.length };
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
export const PREAMBLE = 8;

/**
 * A container's header, from its first bytes (at least `PREAMBLE`, and all of the header to
 * parse it): the meta, the sections, and where the sections begin; or, when `front` holds the
 * preamble but not the whole header, how many bytes are `needed`.
 */
export function readHeader<M>(front: Uint8Array): { header: Header<M>; start: number } | { needed: number } {
  const view = new DataView(front.buffer, front.byteOffset, front.byteLength);
  if (front.byteLength < PREAMBLE || view.getUint32(0, true) !== MAGIC) throw new Error('not a compiled dataset');
  const length = view.getUint32(4, true);
  if (front.byteLength < PREAMBLE + length) return { needed: PREAMBLE + length };
  const header = JSON.parse(new TextDecoder().decode(front.subarray(PREAMBLE, PREAMBLE + length))) as Header<M>;
  return { header, start: align(PREAMBLE + length) };
}

export const BYTES_PER: Record<SectionType, number> = { u8: 1, u16: 2, u32: 4, f64: 8 };

/**
 * Reads the header of a container and views its sections in place (copying only if misaligned),
 * each view made once. `bytes` may be only the front of the container (a piece's head read from
 * a file): sections within it can be viewed, and `extent` says where any section lies.
 */
export function readContainer<M>(bytes: Uint8Array): {
  meta: M;
  names: string[];
  section(name: string): SectionData;
  /** Where section `name` lies, in bytes from the container's start. */
  extent(name: string): { offset: number; byteLength: number };
} {
  const read = readHeader<M>(bytes);
  if ('needed' in read) throw new Error('compiled dataset header is cut short');
  const { header, start } = read;
  const aligned = bytes.byteOffset % ALIGN === 0 ? bytes : bytes.slice();
  const views = new Map<string, SectionData>();
  const entryOf = (name: string): SectionEntry => {
    const entry = header.sections[name];
    if (!entry) throw new Error(`compiled dataset has no section ${name}`);
    return entry;
  };
  const open = (name: string): SectionData => {
    const entry = entryOf(name);
    const offset = aligned.byteOffset + start + entry.offset;
    const Typed = { u8: Uint8Array, u16: Uint16Array, u32: Uint32Array, f64: Float64Array }[entry.type];
    return new Typed(aligned.buffer as ArrayBuffer, offset, entry.length);
  };
  return {
    meta: header.meta,
    names: Object.keys(header.sections),
    section(name) {
      let known = views.get(name);
      if (!known) views.set(name, (known = open(name)));
      return known;
    },
    extent(name) {
      const entry = entryOf(name);
      return { offset: start + entry.offset, byteLength: entry.length * BYTES_PER[entry.type] };
    },
  };
}
