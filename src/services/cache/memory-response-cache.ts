import { LRUCache } from 'lru-cache';
import { entryBytes } from './entry-size';
import type { Clock } from '../clock';
import type { CachedResponse, ResponseCache } from './response-cache';

/**
 * The in-memory upstream response cache (Node): an LRU bounded by entry count and by size, counted
 * as the key (at two bytes a character: it comes from requests), the body's characters (V8 keeps
 * Latin-1 text at one byte per character, so for this data the size is the memory the strings
 * take) and each entry's overhead. Entries leave once past `staleUntil`; freshness
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
      sizeCalculation: (entry, key) => entryBytes(key, entry.body.length),
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
