/** Browsers (docs/reference/requests.md): CORS on v2 and v3, none on the token endpoint. */
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO, json, type SuiteClient } from './client';
import { mintDemoToken } from './tokens';

const ORIGIN = 'https://field-guide.example';
const EXPOSED = ['Svc-Request-Id', 'RateLimit', 'RateLimit-Policy', 'Retry-After', 'ETag', 'Last-Modified', 'WWW-Authenticate'];

const list = (value: string | null) =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);

export function corsSuite(client: () => SuiteClient): void {
  describe('CORS', () => {
    let token: string;
    beforeAll(async () => {
      token = await mintDemoToken(client());
    });

    for (const path of ['/v2/species', '/v2/species/ABBA', '/v2/genus/Abies/species', '/v3/species?q=abies']) {
      it(`answers a preflight for ${path} with 204, without a credential`, async () => {
        const headers = { Origin: ORIGIN, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'authorization' };
        const res = await client().get(path, headers, { method: 'OPTIONS' });
        expect(res.status, await res.text()).toBe(204);
        expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
        expect(list(res.headers.get('Access-Control-Allow-Methods'))).toContain('get');
        expect(list(res.headers.get('Access-Control-Allow-Headers'))).toContain('authorization');
        // No cookies are used, so credentials mode is never allowed (and `*` stays valid).
        expect(res.headers.get('Access-Control-Allow-Credentials')).toBeNull();
        expect(Number(res.headers.get('Access-Control-Max-Age'))).toBeGreaterThan(0);
        expect(res.headers.get('Svc-Request-Id')).toBeTruthy();
        expect(res.headers.get('RateLimit')).toBeNull();
      });
    }

    it('lets a browser read a Bearer response and its tracing, limit and caching headers', async () => {
      const res = await client().get('/v3/species/ABBA', { Origin: ORIGIN, Authorization: `Bearer ${token}` });
      expect(res.status, await res.clone().text()).toBe(200);
      expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
      expect(list(res.headers.get('Access-Control-Expose-Headers'))).toEqual(expect.arrayContaining(EXPOSED.map((h) => h.toLowerCase())));
      expect(res.headers.get('Access-Control-Allow-Credentials')).toBeNull();
      for (const header of ['Svc-Request-Id', 'RateLimit', 'RateLimit-Policy', 'ETag', 'Last-Modified']) expect(res.headers.get(header), header).toBeTruthy();
    });

    it('lets a browser read an error and its challenge', async () => {
      const res = await client().get('/v2/species', { Origin: ORIGIN, Authorization: 'Bearer expired-or-forged' });
      const body = await json(res);
      expect(res.status, JSON.stringify(body)).toBe(401);
      expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
      expect(list(res.headers.get('Access-Control-Expose-Headers'))).toContain('www-authenticate');
    });

    it('still serves an API key sent from a browser (the log line flags it)', async () => {
      const res = await client().get('/v2/species', { Origin: ORIGIN, Authorization: DEMO.key });
      expect(res.status, await res.text()).toBe(200);
      expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
    });

    it('answers no CORS outside the versions (the token endpoint, health)', async () => {
      for (const path of ['/oauth/token', '/healthz']) {
        const res = await client().get(path, { Origin: ORIGIN, 'Access-Control-Request-Method': 'POST' }, { method: 'OPTIONS' });
        expect(res.status, path).not.toBe(204);
        expect(res.headers.get('Access-Control-Allow-Origin'), path).toBeNull();
      }
    });
  });
}
