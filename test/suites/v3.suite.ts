/**
 * The v3 closed preview (docs/reference/access.md): the v2 core under `/v3`, for Bearer tokens whose
 * credential is in the preview. Expectations come from the API itself (v2 answers), not the dataset.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO, json, type SuiteClient } from './client';
import { mintDemoToken } from './tokens';

export function v3Suite(client: () => SuiteClient): void {
  describe('v3 closed preview', () => {
    let bearer: Record<string, string>;
    beforeAll(async () => {
      bearer = { Authorization: `Bearer ${await mintDemoToken(client())}` };
    });

    it('serves an OAuth token in the preview: the v2 records with /v3 links', async () => {
      const path = '/species?q=abies&order%5Bscientific_name%5D=desc&page=2';
      const [v3, v2] = await Promise.all([client().get(`/v3${path}`, bearer), client().get(`/v2${path}`, bearer)]);
      const [b3, b2] = [await json(v3), await json(v2)];
      expect(v3.status, JSON.stringify(b3)).toBe(200);
      expect(v2.status, JSON.stringify(b2)).toBe(200);
      expect(b3.data).toEqual(b2.data);
      expect(b3.meta).toEqual(b2.meta);
      expect(b2.data.length).toBeGreaterThan(0);
      for (const [rel, link] of Object.entries(b3.links as Record<string, string>)) {
        expect(link, rel).toBe((b2.links as Record<string, string>)[rel]!.replace(/^\/v2\//, '/v3/'));
      }
      expect(b3.links.self).toBe('/v3/species?q=abies&order%5Bscientific_name%5D=desc&page=2');
    });

    it('serves details and enumerations under /v3 too', async () => {
      const list = await json(await client().get('/v3/genus?q=abies', bearer));
      const genus = list.data[0];
      expect(genus, JSON.stringify(list)).toBeDefined();
      const species = await client().get(`/v3/genus/${encodeURIComponent(genus.id)}/species`, bearer);
      const body = await json(species);
      expect(species.status, JSON.stringify(body)).toBe(200);
      expect(body.links.self.startsWith(`/v3/genus/${encodeURIComponent(genus.id)}/species?`)).toBe(true);
      const detail = await client().get(`/v3/species/${encodeURIComponent(body.data[0].id)}`, bearer);
      const record = await json(detail);
      expect(detail.status, JSON.stringify(record)).toBe(200);
      expect(record.data.id).toBe(body.data[0].id);
    });

    const refusals: Array<{ name: string; headers: Record<string, string>; path?: string; status: number; code: string }> = [
      { name: 'the demo project API key', headers: { Authorization: DEMO.key }, status: 401, code: 'auth/credentialNotAccepted' },
      { name: 'the species-only API key', headers: { Authorization: DEMO.speciesOnlyKey }, status: 401, code: 'auth/credentialNotAccepted' },
      { name: 'an API key in x-api-key', headers: { 'x-api-key': 'demo-project-key' }, status: 401, code: 'auth/credentialNotAccepted' },
      { name: 'no credential', headers: {}, status: 401, code: 'auth/missingCredential' },
      { name: 'an unknown Bearer token', headers: { Authorization: 'Bearer not-a-token' }, status: 401, code: 'auth/invalidCredential' },
      { name: 'a personal token outside the preview', headers: { Authorization: DEMO.personalToken }, status: 403, code: 'auth/forbidden' },
    ];
    for (const row of refusals) {
      it(`answers ${row.name} with ${row.status} ${row.code}`, async () => {
        const res = await client().get('/v3/species', row.headers);
        const body = await json(res);
        expect(res.status, JSON.stringify(body)).toBe(row.status);
        expect(body.code, JSON.stringify(body)).toBe(row.code);
        expect(body.data).toBeUndefined();
        if (row.status === 401) {
          // v3 names only the scheme it accepts.
          expect(res.headers.get('WWW-Authenticate')).toMatch(/^Bearer realm="[^"]+"/);
          expect(res.headers.get('WWW-Authenticate')).not.toMatch(/ApiKey/i);
        }
      });
    }

    it('refuses a preview token sent in a query parameter, even beside a valid header', async () => {
      const token = bearer.Authorization!.slice('Bearer '.length);
      const res = await client().get(`/v3/species?token=${token}`, bearer);
      expect(res.status).toBe(401);
      expect((await json(res)).code).toBe('auth/credentialNotAccepted');
    });

    it('gives the personal token 200 on v2, so its 403 on v3 is the preview rule', async () => {
      const res = await client().get('/v2/species', { Authorization: DEMO.personalToken });
      expect(res.status, await res.text()).toBe(200);
    });
  });
}
