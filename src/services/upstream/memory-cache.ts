import { LRUCache } from 'lru-cache';
import type { Clock } from '../clock';
import type { CachedResponse, ResponseCache } from '../response-cache';

/** Bookkeeping bytes counted per entry beside its key and body. */
const ENTRY_OVERHEAD = 64;

/**
 * The in-memory upstream response cache (Node): an LRU bounded by entry count and by size, counted
 * as the characters of key and body (V8 keeps Latin-1 text at one byte per character, so for this
 * data the size is the memory the strings take). Entries leave once past `staleUntil`; freshness
 * is the caller's decision.
 */
export class MemoryResponseCache implements ResponseCache {
  private readonly lru: LRUCache<string, CachedResponse>;

  constructor(
    options: { maxEntries: number; maxBytes: number },
    private readonly clock: Clock,
  ) {
    this.lru = new LRUCache<string, CachedResponse>({
      max: options.maxEntries,
      maxSize: options.maxBytes,
      sizeCalculation: (entry, key) => key.length + entry.body.length + ENTRY_OVERHEAD,
    });
  }

  async get(key: string): Promise<CachedResponse | undefined> {
    const entry = this.lru.get(key);
    if (entry && this.clock.now() >= entry.staleUntil) {
      this.lru.delete(key);
      return undefined;
    }
    return entry;
  }

  async set(key: string, entry: CachedResponse): Promise<void> {
    this.lru.set(key, entry);
  }

  /** Entries and their counted size, for tests and diagnostics. */
  get stats(): { entries: number; size: number } {
    return { entries: this.lru.size, size: this.lru.calculatedSize };
  }
}
