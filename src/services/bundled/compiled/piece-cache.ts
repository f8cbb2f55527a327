import { LRUCache } from 'lru-cache';
import { entryBytes } from '../../cache/entry-size';

/**
 * What the compiled dataset's readers keep of the pieces they opened, by default. On Workers, where
 * a piece is a fetch: every species record chunk (23 MB) with the search pieces in use (the whole
 * artifact is about 41 MB); smaller, a walk through every page would fetch each chunk again on every
 * pass. On Node record chunks are kept as their heads only (the JSON stays in the file), so what is
 * kept is mostly search pieces and id chunks, well under the budget.
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
    this.lru.set(key, value, { size: entryBytes(key, bytes) });
  }

  /** Bytes counted for what is held now: piece data, keys and each entry's overhead. */
  get bytes(): number {
    return this.lru.calculatedSize;
  }
}
