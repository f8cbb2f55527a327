/** An upstream response as the cache keeps it. */
export interface CachedResponse {
  status: number;
  /** The validated JSON body text. */
  body: string;
  /** Epoch ms until which the entry is fresh. */
  freshUntil: number;
  /** Epoch ms until which the entry may still be served when the upstream fails. */
  staleUntil: number;
}

/**
 * The upstream response cache, keyed by path and normalised query (never by caller credential).
 * Node uses a bounded in-memory LRU; the Workers entry the Cache API.
 */
export interface ResponseCache {
  get(key: string): Promise<CachedResponse | undefined>;
  set(key: string, entry: CachedResponse): Promise<void>;
}
