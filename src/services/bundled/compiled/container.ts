/**
 * The compiled dataset's container: a small JSON header naming typed sections, then the sections,
 * each 8-byte aligned so a reader views them in place (no copy, no parse). Layout:
 * `BOTD` | u32 header length | header (UTF-8 JSON) | sections.
 */

const MAGIC = 0x44544f42; // "BOTD", little-endian
const ALIGN = 8;

export type SectionType = 'u8' | 'u16' | 'u32' | 'f64';
export type SectionData = Uint8Array | Uint16Array | Uint32Array | Float64Array;

interface SectionEntry {
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

/** Reads the header of a container and views its sections in place (copying only if misaligned), each view made once. */
export function readContainer<M>(bytes: Uint8Array): { meta: M; names: string[]; section(name: string): SectionData } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 8 || view.getUint32(0, true) !== MAGIC) throw new Error('not a compiled dataset');
  const length = view.getUint32(4, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + length))) as Header<M>;
  const start = align(8 + length);
  const aligned = bytes.byteOffset % ALIGN === 0 ? bytes : bytes.slice();
  const views = new Map<string, SectionData>();
  const open = (name: string): SectionData => {
    const entry = header.sections[name];
    if (!entry) throw new Error(`compiled dataset has no section ${name}`);
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
  };
}
