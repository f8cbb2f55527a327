import { LRUCache } from 'lru-cache';
import { entryBytes } from '../cache/entry-size';
import type { LogLine } from '../log';
import type { Clock } from '../clock';

/** One warn line per cache key per window. */
const STALE_WARN_WINDOW_MS = 60_000;
/** Keys whose window is remembered: past this, the least recent may warn again early. */
const MAX_KEYS = 1_000;
/** Bytes those keys may take: they are cache keys, built from request paths and queries. */
export const STALE_WARNING_BYTES = 512 * 1024;

/**
 * The warn lines of stale answers, aggregated: during an outage every request of a hot key is
 * answered from the cache, and one line per request would flood the log. The first stale answer
 * of a key writes a line at once; later ones within the window are counted, and the first one
 * after it writes a line whose `stale_count` counts every stale answer since the key's last line.
 */
export class StaleWarnings {
  private readonly windows = new LRUCache<string, { until: number; count: number }>({
    max: MAX_KEYS,
    maxSize: STALE_WARNING_BYTES,
    sizeCalculation: (_, key) => entryBytes(key, 32),
  });

  constructor(
    private readonly clock: Clock,
    private readonly log: (line: LogLine) => void,
  ) {}

  served(key: string, line: Omit<LogLine, 'level' | 'message'>): void {
    const now = this.clock.now();
    const window = this.windows.get(key);
    if (window && now < window.until) {
      window.count++;
      return;
    }
    this.windows.set(key, { until: now + STALE_WARN_WINDOW_MS, count: 0 });
    this.log({ level: 'warn', message: 'upstream failed: serving a stale response', ...line, stale_count: (window?.count ?? 0) + 1 });
  }
}
