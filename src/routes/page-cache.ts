import { LRUCache } from 'lru-cache';
import { CREDENTIAL_PARAMS, pairName, pathname, rawQueryPairs } from '../core/query-string';
import type { Version } from '../versions/version';

/** Rendered collection pages kept at most, in bytes: about 600 pages of 20 species. */
export const PAGE_CACHE_BYTES = 8 * 1024 * 1024;

/**
 * Collection bodies already rendered, for a source whose answers never change: a page asked for
 * again is sent from these bytes. A body depends only on the version, the path and the query
 * (links repeat them), never on the caller; access is checked before a page is looked up, and
 * credential parameters are not part of the key (they are not part of the body either), so no
 * secret is kept. Bounded by bytes, least recently used first out.
 */
export class PageCache {
  private readonly lru: LRUCache<string, Uint8Array<ArrayBuffer>>;

  constructor(maxBytes = PAGE_CACHE_BYTES) {
    this.lru = new LRUCache({ maxSize: maxBytes, sizeCalculation: (body, key) => body.buffer.byteLength + key.length });
  }

  /** The key of a request's page: version, path and the query without credential parameters. */
  keyOf(version: Version, url: string): string {
    let key = `${version.name} ${pathname(url)}?`;
    for (const pair of rawQueryPairs(url)) if (!CREDENTIAL_PARAMS.has(pairName(pair))) key += `${pair}&`;
    return key;
  }

  get(key: string): Uint8Array<ArrayBuffer> | undefined {
    return this.lru.get(key);
  }

  set(key: string, body: Uint8Array<ArrayBuffer>): void {
    this.lru.set(key, body);
  }
}
