import { describe, expect, it } from 'vitest';
import { contractOrder, type OrderTerms } from '../support/order-oracle';
import { DEMO, json, walkPages, type SuiteClient } from './client';

const ids = (pages: any[]) => pages.flatMap((p) => p.data.map((r: any) => r.id));

/** Asserts records are in `order` (text case/accent-insensitive, nulls last, ties by id). */
function expectOrdered(records: any[], terms: OrderTerms) {
  const compare = contractOrder(terms);
  for (let i = 1; i < records.length; i++) {
    const [a, b] = [records[i - 1], records[i]];
    expect(compare(a, b), `records ${i - 1} and ${i} out of order: ${JSON.stringify([a.id, b.id])}`).toBeLessThan(0);
  }
}

/** The canonical v2 API as a client sees it (docs/reference/interface.md-7, 13), on any runtime. */
export function v2Suite(client: () => SuiteClient) {
  const get = (path: string, headers?: Record<string, string>, init?: RequestInit) => client().get(path, headers, init);

  describe('v2 collections', () => {
    it('pages the species collection in pages of 20 with the full envelope', async () => {
      const res = await get('/v2/species');
      const body = await json(res);
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(body.data).toHaveLength(20);
      expect(body.meta).toEqual({ total: 32800, per_page: 20, current_page: 1, last_page: 1640 });
      expect(body.links).toEqual({
        self: '/v2/species?page=1',
        first: '/v2/species?page=1',
        next: '/v2/species?page=2',
        last: '/v2/species?page=1640',
      });
      const record = body.data[0];
      for (const field of ['id', 'slug', 'scientific_name', 'rank', 'status', 'genus_id', 'family_id']) {
        expect(typeof record[field], field).toBe('string');
      }
      expect(record.rank).toBe(record.rank.toLowerCase());
    });

    it('has prev and next in the middle, no next on the last page', async () => {
      const middle = await json(await get('/v2/species?page=2'));
      expect(middle.links.prev).toBe('/v2/species?page=1');
      expect(middle.links.next).toBe('/v2/species?page=3');
      const last = await json(await get('/v2/species?page=1640'));
      expect(last.links.next).toBeUndefined();
      expect(last.links.prev).toBe('/v2/species?page=1639');
      expect(last.data).toHaveLength(32800 - 1639 * 20);
    });

    it('orders by id ascending, numeric-aware, by default', async () => {
      const body = await json(await get('/v2/species?page=3'));
      expectOrdered(body.data, []);
    });

    it('keeps every query parameter in links, in the caller order, changing only page', async () => {
      const body = await json(await get('/v2/species?order[scientific_name]=desc&q=abies&page=2&utm=x'));
      expect(body.links.self).toBe('/v2/species?order[scientific_name]=desc&q=abies&page=2&utm=x');
      expect(body.links.prev).toBe('/v2/species?order[scientific_name]=desc&q=abies&page=1&utm=x');
      expect(body.links.first).toBe('/v2/species?order[scientific_name]=desc&q=abies&page=1&utm=x');
    });

    it('drops empty pairs from links and keeps escapes, even malformed ones, as the caller wrote them', async () => {
      const body = await json(await get('/v2/species?&q=fir&&%7Ex=a%2Bb&%zz=1&page=1&'));
      expect(body.links, JSON.stringify(body)).toMatchObject({
        self: '/v2/species?q=fir&%7Ex=a%2Bb&%zz=1&page=1',
        first: '/v2/species?q=fir&%7Ex=a%2Bb&%zz=1&page=1',
      });
      expect(body.links.next).toMatch(/^\/v2\/species\?q=fir&%7Ex=a%2Bb&%zz=1&page=2$/);
      const bare = await json(await get('/v2/species?q=fir&order[slug]'));
      expect(bare.detail, JSON.stringify(bare)).toBe('"order[slug]" must be asc or desc.');
    });

    it('searches case- and accent-insensitively across names, vernacular names and synonyms', async () => {
      const totals = await Promise.all(
        ['érable', 'ERABLE', 'Erable'].map(async (q) => (await json(await get(`/v2/species?q=${encodeURIComponent(q)}`))).meta.total),
      );
      expect(totals[0]).toBeGreaterThan(0);
      expect(new Set(totals).size, `totals ${totals}`).toBe(1);
      // A French vernacular name finds the sugar maple's genus-mates; a synonym finds its accepted taxon.
      const synonym = await json(await get('/v2/species?q=Abutilon%20jacquinii'));
      expect(synonym.data.map((r: any) => r.id)).toContain('ABAB');
      const common = await json(await get('/v2/species?q=balsam%20fir'));
      expect(common.data.map((r: any) => r.id)).toContain('ABBA');
    });

    it('walks a search to the end by following links.next, ordered as asked', async () => {
      const pages = await walkPages(client(), '/v2/species?q=abies&order[scientific_name]=desc');
      const all = pages.flatMap((p) => p.data);
      expect(all.length).toBe(pages[0].meta.total);
      expect(pages.length).toBeGreaterThan(1);
      expect(new Set(ids(pages)).size).toBe(all.length);
      expectOrdered(all, [['scientific_name', 'desc']]);
      expect(pages.at(-1).links.next).toBeUndefined();
    });

    it.each([
      [[['common_name', 'asc']]],
      [
        [
          ['common_name', 'desc'],
          ['scientific_name', 'asc'],
        ],
      ],
      [
        [
          ['year', 'desc'],
          ['slug', 'asc'],
        ],
      ],
      [[['id', 'desc']]],
    ] as Array<[Array<[string, 'asc' | 'desc']>]>)('orders by %j with nulls last and ties by id', async (terms) => {
      const query = terms.map(([f, d]) => `order[${f}]=${d}`).join('&');
      const pages = await walkPages(client(), `/v2/species?q=carex&${query}`);
      const all = pages.flatMap((p) => p.data);
      expect(all.length).toBe(pages[0].meta.total);
      expectOrdered(all, terms);
    });

    it('answers an empty result with only a self link', async () => {
      const res = await get('/v2/species?q=zzzzqqqq');
      const body = await json(res);
      expect(res.status).toBe(200);
      expect(body).toEqual({ data: [], links: { self: '/v2/species?q=zzzzqqqq&page=1' }, meta: { total: 0, per_page: 20, current_page: 1, last_page: 0 } });
    });

    it('answers a page past the last with 404 svc/notFound', async () => {
      const res = await get('/v2/species?q=abies&page=99');
      const body = await json(res);
      expect(res.status).toBe(404);
      expect(body.code).toBe('svc/notFound');
      expect((await get('/v2/species?q=zzzzqqqq&page=2')).status).toBe(404);
    });

    it.each(['0', '-1', 'abc', '1.5', '1e3', '', ' 1', '0x10', '99999999999'])('rejects page=%j with 400 naming the parameter', async (page) => {
      const res = await get(`/v2/species?page=${encodeURIComponent(page)}`);
      const body = await json(res);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(body.code).toBe('svc/invalidParameter');
      expect(body.detail).toContain('page');
    });

    // The detail a client reads, in full, for each refused parameter (docs/reference/interface.md).
    it.each([
      ['page twice', 'page=1&page=2', '"page" may be given only once.'],
      ['q twice', 'q=fir&q=oak', '"q" may be given only once.'],
      ['a long page, cut at 20 characters', `page=${'9'.repeat(30)}`, `"page" must be a positive whole number (got "${'9'.repeat(20)}").`],
      ['q of 201 characters', `q=${'a'.repeat(201)}`, '"q" may be at most 200 characters long.'],
      ['a field species has not', 'order[color]=asc', '"order[color]": species can be ordered by scientific_name, common_name, slug, year, id.'],
      ['a field of another resource', 'order[name]=asc', '"order[name]": species can be ordered by scientific_name, common_name, slug, year, id.'],
      [
        'a long field, cut at 40 characters',
        `order[${'f'.repeat(50)}]=asc`,
        `"order[${'f'.repeat(40)}]": species can be ordered by scientific_name, common_name, slug, year, id.`,
      ],
      ['a direction other than asc or desc', 'order[slug]=up', '"order[slug]" must be asc or desc.'],
      ['a field twice', 'order[year]=desc&order[year]=desc', '"order[year]" may be given only once.'],
    ])('refuses %s with 400 and the detail naming it', async (_, query, detail) => {
      const res = await get(`/v2/species?${query}`);
      const body = await json(res);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(body.code).toBe('svc/invalidParameter');
      expect(body.detail).toBe(detail);
    });

    it('reads an empty q as no search, and order[] and other names as unknown parameters', async () => {
      const body = await json(await get('/v2/species?q=&order=asc&order[]x=asc&xorder[slug]=desc'));
      expect(body.meta.total, JSON.stringify(body.meta)).toBe(32800);
      expect(body.data[0].id).toBe((await json(await get('/v2/species'))).data[0].id);
    });

    it('accepts q of exactly 200 characters and ignores unknown parameters', async () => {
      expect((await get(`/v2/species?q=${'a'.repeat(200)}`)).status).toBe(200);
      const body = await json(await get('/v2/species?per_page=100&limit=5'));
      expect(body.data).toHaveLength(20);
    });
  });

  describe('v2 families, genus and plants', () => {
    it.each([
      ['families', 361],
      ['genus', 3731],
      ['plants', 24552],
    ])('lists /v2/%s with every record reachable', async (resource, total) => {
      const body = await json(await get(`/v2/${resource}`));
      expect(body.meta.total).toBe(total);
      const first = body.data[0];
      const detail = await get(`/v2/${resource}/${encodeURIComponent(first.id)}`);
      expect(detail.status).toBe(200);
      expect((await json(detail)).data).toEqual(first);
    });

    it('walks /v2/families/Asteraceae/genus through every page', async () => {
      const pages = await walkPages(client(), '/v2/families/Asteraceae/genus');
      expect(pages).toHaveLength(Math.ceil(459 / 20));
      const all = pages.flatMap((p) => p.data);
      expect(all).toHaveLength(459);
      expect(all.every((g: any) => g.family_id === 'Asteraceae')).toBe(true);
    });

    it('enumerates the species of a genus, the plants of a genus and the species of a plant', async () => {
      // Carex: 566 species-rank taxa (its plants) and 134 varieties and subspecies.
      const carex = await json(await get('/v2/genus/Carex/species'));
      expect(carex.meta.total).toBe(700);
      expect(carex.data.every((s: any) => s.genus_id === 'Carex')).toBe(true);
      expect((await json(await get('/v2/genus/Carex/plants'))).meta.total).toBe(566);
      const plants = await json(await get('/v2/genus/Abies/plants?order[scientific_name]=asc'));
      expect(plants.data.length).toBeGreaterThan(5);
      expectOrdered(plants.data, [['scientific_name', 'asc']]);
      const lasiocarpa = await json(await get('/v2/plants/ABLA/species'));
      expect(lasiocarpa.data.map((s: any) => s.id)).toContain('ABLA');
      expect(lasiocarpa.data.every((s: any) => s.plant_id === 'ABLA')).toBe(true);
      expect(lasiocarpa.meta.total).toBeGreaterThan(1);
    });

    it('searches and orders inside an enumeration', async () => {
      const body = await json(await get('/v2/genus/Carex/species?q=sedge&order[common_name]=desc'));
      expect(body.meta.total).toBeGreaterThan(20);
      expect(body.links.next).toBe('/v2/genus/Carex/species?q=sedge&order[common_name]=desc&page=2');
      expectOrdered(body.data, [['common_name', 'desc']]);
    });

    it('answers 404 for an unknown parent', async () => {
      const res = await get('/v2/genus/Nopenotagenus/species');
      expect(res.status).toBe(404);
      expect((await json(res)).code).toBe('svc/notFound');
    });
  });

  describe('v2 details', () => {
    it('wraps the record in data with meta.last_modified and counts', async () => {
      const res = await get('/v2/species/ABBA');
      const body = await json(res);
      expect(res.status).toBe(200);
      expect(body.data).toMatchObject({
        id: 'ABBA',
        scientific_name: 'Abies balsamea',
        common_name: 'balsam fir',
        rank: 'species',
        status: 'accepted',
        duration: ['perennial'],
        fruit_or_seed: { color: ['BROWN'], conspicuous: false },
        growth_rate: 'SLOW',
      });
      expect(body.data.common_names.en).toContain('balsam fir');
      expect(body.data.common_names.fr).toContain('sapin baumier');
      expect(body.meta.last_modified).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      expect(body.meta.synonyms_count).toBe(body.data.synonyms.length);
      expect(res.headers.get('last-modified')).toBe(new Date(body.meta.last_modified).toUTCString());
      expect(res.headers.get('etag')).toMatch(/^"[^"]+"$/);
    });

    it('answers If-None-Match with 304 and no body', async () => {
      const first = await get('/v2/species/ABBA');
      const tag = first.headers.get('etag')!;
      const res = await get('/v2/species/ABBA', { Authorization: DEMO.key, 'If-None-Match': tag });
      expect(res.status).toBe(304);
      expect(await res.text()).toBe('');
      expect(res.headers.get('svc-request-id')).toBeTruthy();
      expect(res.headers.get('etag')).toBe(tag);
      const other = await get('/v2/species/ABBA', { Authorization: DEMO.key, 'If-None-Match': '"something-else"' });
      expect(other.status).toBe(200);
    });

    it('answers an unknown id with 404 problem+json', async () => {
      const res = await get('/v2/species/NOPE123');
      const body = await json(res);
      expect(res.status).toBe(404);
      expect(body).toMatchObject({ status: 404, code: 'svc/notFound', title: 'Resource not found' });
      expect(body.type).toBe('https://docs.botanical.example/problems/not-found');
      expect(body.instance).toBe(`urn:botanical:request:${res.headers.get('svc-request-id')}`);
    });

    it('answers HEAD like GET without a body', async () => {
      const res = await get('/v2/species/ABBA', undefined, { method: 'HEAD' });
      expect(res.status).toBe(200);
      expect(res.headers.get('etag')).toBeTruthy();
      expect(await res.text()).toBe('');
    });
  });

  describe('v2 authentication', () => {
    it.each([
      ['no credential', {}, 'auth/missingCredential'],
      ['an unknown key', { Authorization: 'ApiKey not-a-key' }, 'auth/invalidCredential'],
      ['an unknown Bearer token', { Authorization: 'Bearer not-a-token' }, 'auth/invalidCredential'],
      ['a malformed header', { Authorization: 'demo-project-key' }, 'auth/invalidCredential'],
      ['an unsupported scheme', { Authorization: 'Basic ZGVtbzpkZW1v' }, 'auth/invalidCredential'],
    ])('answers %s with 401 and a challenge', async (_, headers, code) => {
      const res = await get('/v2/species', headers as Record<string, string>);
      const body = await json(res);
      expect(res.status, JSON.stringify(body)).toBe(401);
      expect(body.code).toBe(code);
      expect(res.headers.get('www-authenticate')).toMatch(/ApiKey realm=.*Bearer realm=/);
      expect(JSON.stringify(body)).not.toContain('not-a-key');
    });

    it.each([
      ['the key query parameter', '/v2/species?key=demo-project-key', {}],
      ['the token query parameter', '/v2/species?token=demo-personal-token', {}],
      ['x-api-key', '/v2/species', { 'x-api-key': 'demo-project-key' }],
      ['x-key', '/v2/species', { 'x-key': 'demo-project-key' }],
      ['x-api-key beside a valid header', '/v2/species', { 'x-api-key': 'demo-project-key', Authorization: DEMO.key }],
      ['?key= beside a valid header', '/v2/species?key=demo-project-key', { Authorization: DEMO.key }],
      ['?token= after other parameters, beside a valid header', '/v2/species?page=2&q=fir&token=demo-personal-token', { Authorization: DEMO.key }],
      ['a percent-encoded ?key= beside a valid header', '/v2/species?page=2&%6Bey=demo-project-key', { Authorization: DEMO.key }],
      ['an empty ?key beside a valid header', '/v2/species?page=2&key', { Authorization: DEMO.key }],
    ])('refuses a credential in %s with 401 auth/credentialNotAccepted', async (_, path, headers) => {
      const res = await get(path, headers as Record<string, string>);
      const body = await json(res);
      expect(res.status, JSON.stringify(body)).toBe(401);
      expect(body.code).toBe('auth/credentialNotAccepted');
      expect(JSON.stringify(body)).not.toContain('demo-project-key');
    });

    it.each([
      ['ApiKey', DEMO.key],
      ['a personal access token', DEMO.personalToken],
      ['a lower-case scheme', 'apikey demo-project-key'],
      ['an upper-case scheme', 'BEARER demo-personal-token'],
    ])('serves %s', async (_, authorization) => {
      expect((await get('/v2/species', { Authorization: authorization })).status).toBe(200);
    });

    it('forbids a species-only key elsewhere with 403 auth/forbidden', async () => {
      expect((await get('/v2/species', { Authorization: DEMO.speciesOnlyKey })).status).toBe(200);
      expect((await get('/v2/species/ABBA', { Authorization: DEMO.speciesOnlyKey })).status).toBe(200);
      for (const path of ['/v2/genus', '/v2/families/Pinaceae', '/v2/plants', '/v2/families/Pinaceae/genus']) {
        const res = await get(path, { Authorization: DEMO.speciesOnlyKey });
        const body = await json(res);
        expect(res.status, `${path}: ${JSON.stringify(body)}`).toBe(403);
        expect(body.code).toBe('auth/forbidden');
      }
    });
  });

  describe('every response', () => {
    it('carries a fresh Svc-Request-Id, errors and unknown paths included', async () => {
      const responses = await Promise.all([
        get('/v2/species'),
        get('/v2/species'),
        get('/v2/nothing-here'),
        get('/nothing-at-all'),
        get('/v2/species', {}),
        get('/v2/species', undefined, { method: 'POST' }),
        get('/healthz', {}),
      ]);
      const ids = responses.map((r) => r.headers.get('svc-request-id'));
      expect(
        ids.every((id) => !!id && /^[0-9a-f-]{36}$/.test(id)),
        JSON.stringify(ids),
      ).toBe(true);
      expect(new Set(ids).size).toBe(ids.length);
    });

    it('answers other methods with 405 and Allow', async () => {
      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
        const res = await get('/v2/species/ABBA', undefined, { method });
        const body = await json(res);
        expect(res.status, `${method}: ${JSON.stringify(body)}`).toBe(405);
        expect(body.code).toBe('svc/methodNotAllowed');
        expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
      }
    });

    it('answers unknown paths with 404 problem+json, /api/v2 included', async () => {
      for (const path of ['/v2/trees', '/api/v2/species', '/v9/species']) {
        const res = await get(path);
        expect(res.status, path).toBe(404);
        expect(res.headers.get('content-type')).toBe('application/problem+json');
        expect((await json(res)).code).toBe('svc/notFound');
      }
    });

    it('serves /healthz without a credential', async () => {
      const res = await get('/healthz', {});
      expect(res.status).toBe(200);
      expect(await json(res)).toEqual({ status: 'ok' });
    });
  });
}
