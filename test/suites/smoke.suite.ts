import { describe, expect, it } from 'vitest';
import { DEMO, json, type SuiteClient } from './client';

const REQUEST_ID = 'Svc-Request-Id';

/**
 * The gateway's basic promises as a client sees them, runnable on every runtime: a v2 list, a
 * search, a detail, the 401/403 codes, a 404 problem and the request id on every response.
 * Expectations come from the API itself, never from the dataset file.
 */
export function smokeSuite(client: () => SuiteClient): void {
  describe('smoke: v2 core through the entry', () => {
    it('lists species in pages of 20 with links and meta', async () => {
      const res = await client().get('/v2/species');
      const body = await json(res);
      expect(res.status, JSON.stringify(body).slice(0, 300)).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(body.data).toHaveLength(20);
      expect(body.meta).toMatchObject({ per_page: 20, current_page: 1, last_page: Math.ceil(body.meta.total / 20) });
      expect(body.meta.total).toBeGreaterThan(20);
      expect(body.links).toMatchObject({ self: '/v2/species?page=1', first: '/v2/species?page=1', next: '/v2/species?page=2' });
      expect(body.links.prev).toBeUndefined();
      for (const record of body.data) expect(record.rank, JSON.stringify(record)).toBe(record.rank.toLowerCase());
    });

    it('searches, keeping the query in every link', async () => {
      const res = await client().get('/v2/species?q=abies');
      const body = await json(res);
      expect(res.status, JSON.stringify(body).slice(0, 300)).toBe(200);
      expect(body.meta.total).toBeGreaterThan(0);
      expect(body.meta.total).toBeLessThan((await json(await client().get('/v2/species'))).meta.total);
      for (const record of body.data) expect(JSON.stringify(record).toLowerCase(), record.id).toContain('abies');
      expect(body.links.self).toBe('/v2/species?q=abies&page=1');
      const nothing = await json(await client().get('/v2/species?q=zzzz-no-such-plant'));
      expect(nothing).toMatchObject({ data: [], meta: { total: 0 }, links: { self: '/v2/species?q=zzzz-no-such-plant&page=1' } });
      expect(Object.keys(nothing.links)).toEqual(['self']);
    });

    it('serves a detail wrapped in data with meta', async () => {
      const first = (await json(await client().get('/v2/species?q=abies'))).data[0];
      const res = await client().get(`/v2/species/${encodeURIComponent(first.id)}`);
      const body = await json(res);
      expect(res.status, JSON.stringify(body).slice(0, 300)).toBe(200);
      expect(body.data).toEqual(first);
      expect(body.meta.last_modified).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      expect(typeof body.meta.synonyms_count).toBe('number');
      expect(res.headers.get('etag')).toMatch(/^"/);
    });

    it.each([
      ['no credential', {}, 401, 'auth/missingCredential'],
      ['an unknown key', { Authorization: 'ApiKey not-a-real-key' }, 401, 'auth/invalidCredential'],
      ['a key in x-api-key', { 'x-api-key': 'demo-project-key' }, 401, 'auth/credentialNotAccepted'],
    ])('answers %s with %i %s', async (_name, headers, status, code) => {
      const res = await client().get('/v2/species', headers);
      const body = await json(res);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(body.code).toBe(code);
      expect(res.headers.get('www-authenticate')).toMatch(/ApiKey/);
    });

    it('answers 403 auth/forbidden for a credential without the resource', async () => {
      const allowed = await client().get('/v2/species', { Authorization: DEMO.speciesOnlyKey });
      expect(allowed.status, await allowed.text()).toBe(200);
      const res = await client().get('/v2/genus', { Authorization: DEMO.speciesOnlyKey });
      const body = await json(res);
      expect(res.status, JSON.stringify(body)).toBe(403);
      expect(body.code).toBe('auth/forbidden');
    });

    it('answers an unknown path with a 404 problem whose instance is the request id', async () => {
      const res = await client().get('/v2/no-such-thing');
      const body = await json(res);
      expect(res.status, JSON.stringify(body)).toBe(404);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(body).toMatchObject({ status: 404, code: 'svc/notFound', title: 'Resource not found' });
      expect(body.type).toMatch(/\/problems\/not-found$/);
      expect(body.instance).toBe(`urn:botanical:request:${res.headers.get(REQUEST_ID)}`);
    });

    it('puts a fresh request id on every response, success or error', async () => {
      const responses = await Promise.all([
        client().get('/v2/species'),
        client().get('/v2/species', {}),
        client().get('/v2/species/NO-SUCH-ID'),
        client().get('/nowhere'),
      ]);
      expect(responses.map((r) => r.status)).toEqual([200, 401, 404, 404]);
      const ids = responses.map((r) => r.headers.get(REQUEST_ID));
      for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(new Set(ids).size).toBe(ids.length);
    });
  });
}
