import { readContainer, type SectionData, type SectionType } from './container';
import type { CompiledMeta } from './layout';

/**
 * Where the sections of a compiled dataset come from: one buffer in memory (Node, tests), or
 * pieces fetched on first use and kept (Workers Static Assets). Each section is loaded once.
 */
export interface SectionStore {
  meta: CompiledMeta;
  load(name: string): SectionData | Promise<SectionData>;
}

/** The sections of a container held in memory: viewed in place, nothing parsed. */
export function memoryStore(bytes: Uint8Array): SectionStore {
  const container = readContainer<CompiledMeta>(bytes);
  return { meta: container.meta, load: (name) => container.section(name) };
}

/** The index of the sections published as separate pieces (the Workers Static Assets layout). */
export interface PieceIndex {
  meta: CompiledMeta;
  sections: Record<string, { type: SectionType; length: number }>;
}

/** File name of a section piece. */
export const pieceName = (section: string) => `${section}.bin`;

/**
 * The sections read piece by piece through `fetchPiece` (e.g. the assets binding), each kept once
 * read; concurrent first reads of one piece share a single fetch.
 */
export function pieceStore(index: PieceIndex, fetchPiece: (name: string) => Promise<ArrayBuffer>): SectionStore {
  const pieces = new Map<string, Promise<SectionData>>();
  const views = new Map<string, SectionData>();
  const typed = (type: SectionType, buffer: ArrayBuffer): SectionData =>
    type === 'u8' ? new Uint8Array(buffer) : type === 'u16' ? new Uint16Array(buffer) : type === 'u32' ? new Uint32Array(buffer) : new Float64Array(buffer);
  return {
    meta: index.meta,
    load(name) {
      const ready = views.get(name);
      if (ready) return ready;
      let pending = pieces.get(name);
      if (!pending) {
        const entry = index.sections[name];
        if (!entry) throw new Error(`compiled dataset has no section ${name}`);
        pending = fetchPiece(pieceName(name)).then((buffer) => {
          const view = typed(entry.type, buffer);
          views.set(name, view);
          pieces.delete(name);
          return view;
        });
        pending.catch(() => pieces.delete(name));
        pieces.set(name, pending);
      }
      return pending;
    },
  };
}
