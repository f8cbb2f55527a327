/**
 * What the gateway keeps to answer again cheaply: rendered collection pages (for a source that
 * never changes) and the dataset's pieces (bounded). Kept answers must be the answers: the same
 * bytes, for the same version, path and query only, after the caller's access is checked, with
 * no credential in any key, and within their byte budget.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fileStore } from '../../../src/node';
import { BundledSource } from '../../../src/services/bundled/bundled-source';
import { PieceCache } from '../../../src/services/bundled/compiled/piece-cache';
import type { PieceIndex } from '../../../src/services/bundled/compiled/piece-index';
import { pieceStore, type SectionStore } from '../../../src/services/bundled/compiled/store';
import { readFileSync } from 'node:fs';
import { HOT, INDEX } from '../../../scripts/compile-data';
import type { ListPage, RecordSource } from '../../../src/services/record-source';
import { PageCache } from '../../../src/routes/page-cache';
import { v2 } from '../../../src/versions';
import { DEMO, json } from '../../suites/client';
import { diskApp } from '../../support/gateway';
import { nodeDigest } from '../../../src/node/digest';
import { redactedTarget } from '../../../src/core/redact';

describe('rendered pages', () => {
  it('are kept by version, path and query, with credential parameters left out of the key', () => {
    const pages = new PageCache();
    const key = pages.keyOf(v2, 'https://h/v1/species?key=s3cret-key&q=fir&token=t0ken&page=2');
    expect(key).not.toMatch(/s3cret|t0ken/);
    expect(key).toBe(pages.keyOf(v2, 'https://h/v1/species?q=fir&page=2'));
    expect(key).not.toBe(pages.keyOf(v2, 'https://h/v1/species?page=2&q=fir'));
    expect(key).not.toBe(pages.keyOf(v2, 'https://h/api/v1/species?q=fir&page=2'));
  });

  it('are never kept when the query holds another credential-named parameter, which links would echo', () => {
    const pages = new PageCache();
    for (const name of ['api_key', 'PASSWORD', 'access_token', '%61pikey']) {
      expect(pages.keyOf(v2, `https://h/v2/species?q=fir&${name}=s3cret&page=2`), name).toBeUndefined();
    }
    expect(pages.keyOf(v2, 'https://h/v2/species?q=fir&keys=1&page=2')).toBeDefined();
  });

  it('are kept once asked for again while the key is recent, never by a walk through more pages than are remembered', () => {
    const pages = new PageCache(1024 * 1024, 3);
    const body = (n: number) => new TextEncoder().encode(`{"page":${n}}`) as Uint8Array<ArrayBuffer>;
    const key = (n: number) => pages.keyOf(v2, `https://h/v2/species?page=${n}`)!;
    // A cycle through 5 pages with 3 keys remembered: each key is forgotten before it comes back.
    for (let round = 0; round < 3; round++) for (let n = 1; n <= 5; n++) if (!pages.get(key(n))) pages.set(key(n), body(n));
    for (let n = 1; n <= 5; n++) expect(pages.get(key(n))).toBeUndefined();
    // Asked for again while remembered: kept, and answered from then on.
    pages.set(key(9), body(9));
    expect(pages.get(key(9))).toBeUndefined();
    pages.set(key(9), body(9));
    expect(new TextDecoder().decode(pages.get(key(9)))).toBe('{"page":9}');
  });

  it('answer the same bytes again, and a different query gets its own links', async () => {
    const { get } = diskApp();
    const first = await (await get('/v2/species?order[common_name]=desc&page=3')).text();
    expect(await (await get('/v2/species?order[common_name]=desc&page=3')).text()).toBe(first);
    expect(await (await get('/v2/species?order[common_name]=desc&page=3')).text()).toBe(first);
    const other = await json(await get('/v2/species?x=1&order[common_name]=desc&page=3'));
    expect(other.links.self).toBe('/v2/species?x=1&order[common_name]=desc&page=3');
    expect(JSON.stringify(other.data)).toBe(JSON.stringify(JSON.parse(first).data));
  });

  it('holding a credential its links echo are never answered to another query, nor another secret', async () => {
    const { get } = diskApp();
    for (const name of ['api_key', 'PASSWORD', 'access_token']) {
      const path = (secret?: string) => `/v2/species?q=fir${secret ? `&${name}=${secret}` : ''}&page=2`;
      const first = `s3cret-${name}-1`;
      // Asked for three times: a page that may be kept is kept by then.
      for (let i = 0; i < 3; i++) {
        const page = await json(await get(path(first)));
        expect(page.links.self, name).toBe(path(first));
      }
      for (const other of [undefined, `s3cret-${name}-2`]) {
        for (let i = 0; i < 3; i++) {
          const text = await (await get(path(other))).text();
          expect(text, `${name}=${other}`).not.toContain(first);
          expect(JSON.parse(text).links.self).toBe(path(other));
        }
      }
    }
  });

  it('are served only after the caller’s access is checked', async () => {
    const { get } = diskApp();
    expect((await get('/v2/families?page=2')).status).toBe(200);
    expect((await get('/v2/families?page=2')).status).toBe(200);
    const res = await get('/v2/families?page=2', { Authorization: DEMO.speciesOnlyKey });
    expect(res.status).toBe(403);
    expect((await json(res)).code).toBe('auth/forbidden');
  });

  /** A source whose one family changes its name between requests. */
  function changing(immutable: boolean): RecordSource & { name: string } {
    const source = {
      name: 'first',
      immutable,
      list: async (): Promise<ListPage> => ({ items: [{ id: 'F', slug: 'f', name: source.name, common_name: null }], total: 1, page: 1, perPage: 20 }),
      get: async () => undefined,
    };
    return source;
  }

  for (const immutable of [false, true]) {
    it(`${immutable ? 'are kept' : 'are not kept'} for a source that says its answers ${immutable ? 'never change' : 'may change'}`, async () => {
      const source = changing(immutable);
      const { get } = diskApp({ services: { source }, describes: false });
      // Asked for twice: the second time a page is rendered it may be kept.
      expect((await json(await get('/v2/families'))).data[0].name).toBe('first');
      expect((await json(await get('/v2/families'))).data[0].name).toBe('first');
      source.name = 'second';
      expect((await json(await get('/v2/families'))).data[0].name).toBe(immutable ? 'first' : 'second');
    });
  }
});

describe('kept answers go out at once', () => {
  // What a kept answer saves is the work and the promises: the app's own answer is then the response
  // itself, not a promise of one (the policies around the route run synchronously when every step does).
  for (const path of ['/v2/species?page=4', '/v1/species?page=4', '/v2/species/ABBA', '/v1/species/ABBA', '/v2/species?q=rosa', '/v2/genus/Abies/species']) {
    it(`${path}: the app answers it without a promise once kept, with the same bytes`, async () => {
      // The digest Node serves with, which answers at once (WebCrypto's answers later).
      const { app, get } = diskApp({ services: { digest: nodeDigest } });
      const answer = await get(path);
      expect(answer.status).toBe(200);
      const first = await answer.text();
      await get(path);
      const kept = app.fetch(new Request(`https://localhost${path}`, { headers: { Authorization: DEMO.key } }));
      expect(kept).toBeInstanceOf(Response);
      const res = kept as Response;
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(first);
      expect(res.headers.get('Svc-Request-Id')).toMatch(/\S/);
    });
  }
});

describe('rendered details', () => {
  it('answer the same bytes and validators again, per version, and 304 from what was kept', async () => {
    const { get } = diskApp();
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await get('/v2/species/ABBA'));
    const [first, ...again] = answers;
    const body = await first!.text();
    expect(first!.headers.get('ETag')).toMatch(/^"[0-9a-f]{16}"$/);
    for (const res of again) {
      expect(await res.text()).toBe(body);
      expect(res.headers.get('Content-Type')).toBe('application/json');
      expect(res.headers.get('ETag')).toBe(first!.headers.get('ETag'));
      expect(res.headers.get('Last-Modified')).toBe(first!.headers.get('Last-Modified'));
    }
    // Another record, asked for as often, is its own answer.
    for (let i = 0; i < 2; i++) await get('/v2/species/ABAM');
    const other = await get('/v2/species/ABAM');
    expect((await json(other)).data.id).toBe('ABAM');
    expect(other.headers.get('ETag')).not.toBe(first!.headers.get('ETag'));
    // v1 of the same record: its own body and ETag, not v2's kept answer.
    for (let i = 0; i < 2; i++) await get('/v1/species/ABBA');
    const v1 = await get('/v1/species/ABBA');
    expect((await json(v1)).rank).toBe('SPECIES');
    expect(v1.headers.get('ETag')).not.toBe(first!.headers.get('ETag'));
    const notModified = await get('/v2/species/ABBA', { Authorization: DEMO.key, 'If-None-Match': first!.headers.get('ETag')! });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('ETag')).toBe(first!.headers.get('ETag'));
  });

  it('are served only after the caller’s access is checked', async () => {
    const { get } = diskApp();
    const family = (await json(await get('/v2/families?page=1'))).data[0].id;
    for (let i = 0; i < 3; i++) expect((await get(`/v2/families/${family}`)).status).toBe(200);
    const res = await get(`/v2/families/${family}`, { Authorization: DEMO.speciesOnlyKey });
    expect(res.status).toBe(403);
    expect((await json(res)).code).toBe('auth/forbidden');
  });

  for (const immutable of [false, true]) {
    it(`${immutable ? 'are kept' : 'are not kept'} for a source that says its answers ${immutable ? 'never change' : 'may change'}`, async () => {
      const source = {
        name: 'first',
        immutable,
        list: async (): Promise<ListPage> => ({ items: [], total: 0, page: 1, perPage: 20 }),
        get: async () => ({ record: { id: 'F', slug: 'f', name: source.name, common_name: null }, meta: { last_modified: '2026-03-18T00:00:00Z' } }),
      };
      const { get } = diskApp({ services: { source }, describes: false });
      expect((await json(await get('/v2/families/F'))).data.name).toBe('first');
      expect((await json(await get('/v2/families/F'))).data.name).toBe('first');
      source.name = 'second';
      expect((await json(await get('/v2/families/F'))).data.name).toBe(immutable ? 'first' : 'second');
    });
  }
});

describe('dataset pieces', () => {
  /** The pieces on disk, counting every read. */
  function countingStore(): SectionStore & { reads: number } {
    const files = fileStore();
    const store = { meta: files.meta, reads: 0, load: (name: string) => (store.reads++, files.load(name)) };
    return store;
  }

  it('stay within their byte budget, and pieces dropped are read again with the same answers', async () => {
    const store = countingStore();
    const cache = new PieceCache(256 * 1024);
    const small = new BundledSource(store, cache);
    const reference = new BundledSource(fileStore());
    const pages = [1, 400, 800, 1200, 1600];
    for (const page of pages) {
      const query = { q: undefined, order: [{ field: 'common_name', direction: 'desc' as const }], page };
      expect(await small.list('species', query, undefined)).toEqual(await reference.list('species', query, undefined));
      expect(cache.bytes).toBeGreaterThan(0);
      expect(cache.bytes).toBeLessThanOrEqual(cache.maxBytes);
    }
    const readsBefore = store.reads;
    // Page 1 again: its record chunks were dropped by the pages since, so they are read again.
    const query = { q: undefined, order: [{ field: 'common_name', direction: 'desc' as const }], page: 1 };
    await small.list('species', query, undefined);
    expect(store.reads).toBeGreaterThan(readsBefore);
    // A detail and a search through the same small cache answer as the reference does.
    expect(await small.get('species', 'ABBA')).toEqual(await reference.get('species', 'ABBA'));
    const search = { q: 'fir', order: [], page: 2 };
    expect(await small.list('species', search, undefined)).toEqual(await reference.list('species', search, undefined));
    expect(cache.bytes).toBeLessThanOrEqual(cache.maxBytes);
  });

  it('once read, are kept while the budget allows: a page read again reads nothing', async () => {
    const store = countingStore();
    const source = new BundledSource(store, new PieceCache());
    const query = { q: undefined, order: [], page: 7 };
    await source.list('species', query, undefined);
    const reads = store.reads;
    await source.list('species', query, undefined);
    expect(store.reads).toBe(reads);
  });
});

describe('pieces a worker carries', () => {
  it('are read from its own container, without a fetch; every other piece is fetched once', async () => {
    const index = JSON.parse(readFileSync(INDEX, 'utf8')) as PieceIndex;
    const fetched: string[] = [];
    const store = pieceStore(
      index,
      async (name) => {
        fetched.push(name);
        const bytes = readFileSync(new URL(`../../../generated/assets/${name}`, import.meta.url));
        return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
      },
      new Uint8Array(readFileSync(HOT)),
    );
    const source = new BundledSource(store);
    const query = { q: undefined, order: [{ field: 'common_name', direction: 'desc' as const }], page: 2 };
    expect(await source.list('species', query, undefined)).toEqual(await new BundledSource(fileStore()).list('species', query, undefined));
    // Its positions come from the carried first order chunk; its records, stored in that order, from one piece.
    expect(fetched).toEqual(['species.sorted.common_name.desc.0.bin']);
    // Past the records stored in order, the page reads its records' own chunks, each once.
    fetched.length = 0;
    const deeper = { ...query, page: 60 };
    expect(await source.list('species', deeper, undefined)).toEqual(await new BundledSource(fileStore()).list('species', deeper, undefined));
    expect(fetched.length).toBeGreaterThan(0);
    expect(fetched.every((name) => name.startsWith('species.records.') || name.startsWith('species.order.'))).toBe(true);
    expect(new Set(fetched).size).toBe(fetched.length);
  });
});

/**
 * Logs and kept-page keys read a plain query (`?page=2`) as it is, without going pair by pair;
 * whatever the query, the answer must be what the pair-by-pair rules give. The oracle below is
 * written from those rules, not from the code.
 */
const CREDENTIALS = ['key', 'token', 'api_key', 'apikey', 'access_token', 'client_secret', 'password', 'authorization', 'x-api-key', 'x-key'];

const decodeName = (raw: string): string => {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
};
const nameOf = (pair: string) => decodeName(pair.split('=')[0]!);
const isCredential = (pair: string) => CREDENTIALS.includes(nameOf(pair).toLowerCase());
const pairsOf = (url: string) => {
  const q = url.indexOf('?');
  if (q < 0) return [];
  return url
    .slice(q + 1)
    .split('#')[0]!
    .split('&')
    .filter((p) => p !== '');
};
const pathOf = (url: string) => new URL(url).pathname;

/** Redacted target: every credential-named pair's value replaced. */
const redacted = (url: string) => {
  const pairs = pairsOf(url).map((p) => (isCredential(p) ? `${p.split('=')[0]}=[redacted]` : p));
  return pairs.length ? `${pathOf(url)}?${pairs.join('&')}` : pathOf(url);
};

/** Page key: version, path, the pairs but `key` and `token`; none when another credential name is there. */
const pageKey = (url: string) => {
  const pairs = pairsOf(url);
  if (pairs.some((p) => isCredential(p) && !['key', 'token'].includes(nameOf(p)))) return undefined;
  return `v2 ${pathOf(url)}?${pairs
    .filter((p) => !['key', 'token'].includes(nameOf(p)))
    .map((p) => `${p}&`)
    .join('')}`;
};

const names = fc.oneof(
  fc.constantFrom('page', 'q', 'order[common_name]', 'order[id]', 'x', ''),
  fc
    .constantFrom(...CREDENTIALS)
    .chain((n) => fc.constantFrom(n, n.toUpperCase(), n[0]!.toUpperCase() + n.slice(1), `${n}x`, `x${n}`, encodeURIComponent(n).replace(/^k/, '%6B'))),
);
const values = fc.constantFrom('', '2', 'fir', 'a+b', 'a%20b', 'asc', 'x=y', 's3cret');
const pair = fc.tuple(names, fc.boolean(), values).map(([n, eq, v]) => (eq ? `${n}=${v}` : n));
const query = fc.array(pair, { maxLength: 5 }).map((pairs) => pairs.join('&'));
const url = fc
  .tuple(fc.constantFrom('/v2/species', '/v1/genus/Abies/species'), fc.constantFrom('', '?'), query, fc.constantFrom('', '#frag'))
  .map(([path, mark, q, hash]) => `http://localhost:8787${path}${mark || q ? '?' : ''}${q}${hash}`);

describe('a plain query, read as it is', () => {
  it('gives the redacted target the pair-by-pair rules give', () => {
    fc.assert(
      fc.property(url, (u) => {
        expect(redactedTarget(u)).toBe(redacted(u));
      }),
      { numRuns: 3000, seed: 7 },
    );
  });

  it('gives the kept-page key the pair-by-pair rules give', () => {
    const pages = new PageCache();
    fc.assert(
      fc.property(url, (u) => {
        expect(pages.keyOf(v2, u)).toBe(pageKey(u));
      }),
      { numRuns: 3000, seed: 7 },
    );
  });

  it.each([
    ['http://h/v2/species?page=2', '/v2/species?page=2'],
    ['http://h/v2/species?page=2&KEY=s3cret', '/v2/species?page=2&KEY=[redacted]'],
    ['http://h/v2/species?Api_Key=s3cret&q=fir', '/v2/species?Api_Key=[redacted]&q=fir'],
    ['http://h/v2/species?keyring=1', '/v2/species?keyring=1'],
  ])('%s is logged as %s', (u, logged) => {
    expect(redactedTarget(u)).toBe(logged);
  });
});
