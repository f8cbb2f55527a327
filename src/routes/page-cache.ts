import { LRUCache } from 'lru-cache';
import { entryBytes } from '../services/cache/entry-size';
import { CREDENTIAL_PARAMS, isCredentialName, pairName, pathname, plainQuery, rawQueryPairs } from '../core/query-string';
import type { Version } from '../versions/version';

/** Rendered collection pages kept at most, in bytes: about 600 pages of 20 species. */
export const PAGE_CACHE_BYTES = 8 * 1024 * 1024;

/** Keys remembered as asked for once: about as many as pages the cache holds. */
const SEEN_KEYS = 640;

/**
 * Bytes the keys remembered as asked for once may take: keys are query strings a caller chooses,
 * up to the size of a request line, so a count alone would not bound them.
 */
export const SEEN_KEY_BYTES = 512 * 1024;

/**
 * Answers already rendered, for a source whose answers never change, bounded by bytes, least
 * recently used first out. An answer is kept only when it is asked for a second time while its
 * key is still among the last keys seen: a walk through more answers than the cache holds would
 * otherwise replace every one before it is asked for again, paying for keeping them and never
 * for serving them.
 */
export class KeptAnswers<V extends {}> {
  private readonly lru: LRUCache<string, V>;
  private readonly seen: LRUCache<string, true>;

  constructor(maxBytes: number, seenKeys: number, sizeOf: (answer: V) => number) {
    this.lru = new LRUCache({ maxSize: maxBytes, sizeCalculation: (answer, key) => entryBytes(key, sizeOf(answer)) });
    this.seen = new LRUCache({ max: seenKeys, maxSize: SEEN_KEY_BYTES, sizeCalculation: (_, key) => entryBytes(key, 0) });
  }

  get(key: string): V | undefined {
    return this.lru.get(key);
  }

  /** Keeps `answer` if its key was seen recently; otherwise only remembers the key. */
  set(key: string, answer: V): void {
    if (this.seen.has(key)) this.lru.set(key, answer);
    else this.seen.set(key, true);
  }
}

/**
 * Collection bodies already rendered: a page asked for again is sent from these bytes. A body
 * depends only on the version, the path and the query (links repeat them), never on the caller;
 * access is checked before a page is looked up, and credential parameters are not part of the key
 * (they are not part of the body either), so no secret is kept.
 */
export class PageCache extends KeptAnswers<Uint8Array<ArrayBuffer>> {
  constructor(maxBytes = PAGE_CACHE_BYTES, seenKeys = SEEN_KEYS) {
    super(maxBytes, seenKeys, (body) => body.buffer.byteLength);
  }

  /**
   * The key of a request's page: version, path and the query without the credential parameters
   * links drop (`key`, `token`). A query holding another credential-named parameter (`api_key`,
   * `password`, ...) has no key: links echo it, so its page is never kept.
   */
  keyOf(version: Version, url: string): string | undefined {
    let key = `${version.name} ${pathname(url)}?`;
    const plain = plainQuery(url);
    if (plain !== undefined) return `${key}${plain}&`;
    for (const pair of rawQueryPairs(url)) {
      const name = pairName(pair);
      if (CREDENTIAL_PARAMS.has(name)) continue;
      if (isCredentialName(name)) return undefined;
      key += `${pair}&`;
    }
    return key;
  }
}
