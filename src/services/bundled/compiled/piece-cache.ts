import { LRUCache } from 'lru-cache';

/**
 * What the compiled dataset's readers keep of the pieces they opened, by default: every species
 * record chunk (23 MB) with the search pieces in use (the whole artifact is about 41 MB). Smaller,
 * a walk through every page reads each chunk from disk again on every pass (measured: about
 * three times the CPU per page), since its pages outnumber the rendered-page cache as well.
 */
export const DEFAULT_PIECE_BYTES = 32 * 1024 * 1024;

/**
 * Opened pieces (record chunks, id chunks, search and gram chunks), kept up to a byte budget
 * shared by every resource; the least recently used are dropped first and read again when
 * needed. Pieces are public data and the same for every caller.
 */
export class PieceCache {
  private readonly lru: LRUCache<string | number, object>;

  constructor(readonly maxBytes: number = DEFAULT_PIECE_BYTES) {
    this.lru = new LRUCache<string | number, object>({ maxSize: maxBytes });
  }

  get(key: string | number): object | undefined {
    return this.lru.get(key);
  }

  /** Keeps `value`, which holds `bytes` of piece data (a piece larger than the budget is not kept). */
  set(key: string | number, value: object, bytes: number): void {
    this.lru.set(key, value, { size: Math.max(1, bytes) });
  }

  /** Bytes of piece data held now. */
  get bytes(): number {
    return this.lru.calculatedSize;
  }
}
