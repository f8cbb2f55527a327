import type { MaybePromise } from '../../../core/maybe-promise';
import { ApiError } from '../../../core/api-error';
import { byteLengthOf, checkBounds, entryOf, readContainer, readHeader, TYPED, type SectionData, type SectionType } from './container';
import type { CompiledMeta } from './layout';
import { type PieceIndex, pieceType } from './piece-index';

/**
 * Where the sections of a compiled dataset come from: one buffer in memory (Node, tests), or
 * pieces read or fetched when asked for (files on Node, Workers Static Assets). What is kept,
 * and for how long, is the reader's choice (`CompiledResource`, a bounded `PieceCache`).
 */
export interface SectionStore {
  meta: CompiledMeta;
  load(name: string): MaybePromise<SectionData>;
  /**
   * Bytes `[from, to)` of section `name` (`to` capped at its end), read alone: offered by a store
   * over a local file, where reading part of a piece costs one system call and the operating
   * system's page cache keeps what was read, so a reader need not keep it.
   */
  range?(name: string, from: number, to: number): Uint8Array;
  /** What went wrong reading it, once a read came back short (a file cut after it was opened); else undefined. */
  damage?(): string | undefined;
}

/** The sections of a container held in memory: viewed in place, nothing parsed. */
export function memoryStore(bytes: Uint8Array): SectionStore {
  const container = readContainer<CompiledMeta>(bytes);
  return { meta: container.meta, load: (name) => container.section(name) };
}

/** A piece's bytes as its section's type (copied first if not aligned for it). */
export function viewAs(type: SectionType, bytes: Uint8Array): SectionData {
  const aligned = bytes.byteOffset % 8 === 0 ? bytes : bytes.slice();
  const Typed = TYPED[type];
  return new Typed(aligned.buffer as ArrayBuffer, aligned.byteOffset, aligned.byteLength / Typed.BYTES_PER_ELEMENT);
}

/** How a container file is read: `readAt(offset, length)` may return fewer bytes than asked (the file is shorter). */
export interface ContainerFile {
  readAt(offset: number, length: number): Uint8Array;
  /** The file's size when opened: every section must lie within it. */
  size: number;
  /** Called once, with what was read, when a read first comes back short. */
  onShortRead?(detail: string): void;
}

/**
 * The compiled dataset as one container file read in place (a positioned read on Node). Opening
 * it reads the header only and checks the sections lie within the file; a section is read when
 * asked for, whole (`load`) or in part (`range`). A read that comes back short afterwards (the
 * file was cut while open) marks the store damaged, for readiness, and answers 503
 * `svc/datasetUnavailable` rather than serving a partial section.
 */
export function fileContainerStore(file: ContainerFile): SectionStore {
  let damaged: string | undefined;
  const readAt = (offset: number, length: number): Uint8Array => {
    const bytes = file.readAt(offset, length);
    if (bytes.byteLength === length) return bytes;
    if (damaged === undefined) {
      damaged = `${bytes.byteLength} of ${length} bytes read at ${offset}`;
      file.onShortRead?.(damaged);
    }
    throw new ApiError('svc/datasetUnavailable', 'The dataset could not be read; the operator has been told.');
  };
  const { header, start } = readHeader<CompiledMeta>((from, to) => readAt(from, to - from));
  checkBounds(header, start, file.size);
  return {
    meta: header.meta,
    load(name) {
      const entry = entryOf(header, name);
      return viewAs(entry.type, readAt(start + entry.offset, byteLengthOf(entry)));
    },
    range(name, from, to) {
      const entry = entryOf(header, name);
      const end = Math.min(to, byteLengthOf(entry));
      return readAt(start + entry.offset + from, Math.max(0, end - from));
    },
    damage: () => damaged,
  };
}

/** File name of a section piece. */
export const pieceName = (section: string) => `${section}.bin`;

/**
 * The sections read piece by piece through `fetchPiece` (e.g. the assets binding); concurrent
 * reads of one piece share a single fetch. Sections of `carried` (a container the reader already
 * holds, e.g. bundled with the worker) are read from it without a fetch.
 */
export function pieceStore(index: PieceIndex, fetchPiece: (name: string) => Promise<ArrayBuffer>, carried?: Uint8Array): SectionStore {
  const pending = new Map<string, Promise<SectionData>>();
  const local = carried && readContainer<null>(carried);
  const held = new Set(local?.names);
  return {
    meta: index.meta,
    load(name) {
      if (held.has(name)) return local!.section(name);
      let loading = pending.get(name);
      if (!loading) {
        const type = pieceType(index, name);
        if (!type) throw new Error(`compiled dataset has no section ${name}`);
        loading = fetchPiece(pieceName(name)).then((buffer) => viewAs(type, new Uint8Array(buffer)));
        const done = () => void pending.delete(name);
        loading.then(done, done);
        pending.set(name, loading);
      }
      return loading;
    },
  };
}
