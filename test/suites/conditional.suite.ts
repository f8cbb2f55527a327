/**
 * Conditional requests on details (RFC 9110 13.1): a strong `ETag` per representation,
 * `If-None-Match`, and `If-Modified-Since` against `Last-Modified`, on v2 and v1 alike.
 * Runtime-neutral: run in process on Node and inside workerd.
 */
import { describe, expect, it } from 'vitest';
import { DEMO, type SuiteClient } from './client';

/** Every bundled record carries the dataset's publication date (fixtures/README.md). */
const LAST_MODIFIED = 'Wed, 18 Mar 2026 00:00:00 GMT';
const BEFORE = 'Tue, 17 Mar 2026 23:59:59 GMT';
const LATER = 'Thu, 19 Mar 2026 00:00:00 GMT';

export function conditionalSuite(client: () => SuiteClient): void {
  const get = (path: string, headers: Record<string, string> = {}, init?: RequestInit) => client().get(path, { Authorization: DEMO.key, ...headers }, init);

  describe('conditional requests on details', () => {
    it('gives two records different ETags, and one record the same ETag each time', async () => {
      const tags = await Promise.all(
        ['/v2/species/ABBA', '/v2/species/ABAM', '/v2/genus/Abies', '/v2/species/ABBA'].map(async (p) => (await get(p)).headers.get('etag')),
      );
      expect(tags[0]).toMatch(/^"[^"]+"$/);
      expect(new Set(tags.slice(0, 3)).size, String(tags)).toBe(3);
      expect(tags[3]).toBe(tags[0]);
    });

    for (const base of ['/v2', '/v1']) {
      it(`${base}: If-Modified-Since not older than Last-Modified gives 304 with the validators and no body`, async () => {
        for (const since of [LAST_MODIFIED, LATER]) {
          const res = await get(`${base}/species/ABBA`, { 'If-Modified-Since': since });
          expect(res.status, since).toBe(304);
          expect(await res.text()).toBe('');
          expect(res.headers.get('etag')).toMatch(/^"/);
          expect(res.headers.get('last-modified')).toBe(LAST_MODIFIED);
          expect(res.headers.get('svc-request-id')).toBeTruthy();
          if (base === '/v1') expect(res.headers.get('deprecation')).toBeTruthy();
        }
      });

      it(`${base}: an older or unparseable If-Modified-Since gives the full 200`, async () => {
        for (const since of [BEFORE, 'not a date', '', 'Wed, 18 Mar 2026 00:00:00 GMT, x']) {
          const res = await get(`${base}/species/ABBA`, { 'If-Modified-Since': since });
          expect(res.status, JSON.stringify(since)).toBe(200);
          expect((await res.text()).length).toBeGreaterThan(100);
        }
      });

      it(`${base}: If-None-Match takes precedence over If-Modified-Since`, async () => {
        const tag = (await get(`${base}/species/ABBA`)).headers.get('etag')!;
        const miss = await get(`${base}/species/ABBA`, { 'If-None-Match': '"another"', 'If-Modified-Since': LATER });
        expect(miss.status).toBe(200);
        const hit = await get(`${base}/species/ABBA`, { 'If-None-Match': tag, 'If-Modified-Since': BEFORE });
        expect(hit.status).toBe(304);
      });
    }

    it('HEAD honours If-Modified-Since like GET', async () => {
      const res = await get('/v2/species/ABBA', { 'If-Modified-Since': LATER }, { method: 'HEAD' });
      expect(res.status).toBe(304);
    });

    it('collections ignore If-Modified-Since', async () => {
      const res = await get('/v2/species?q=abies', { 'If-Modified-Since': LATER });
      expect(res.status).toBe(200);
    });
  });
}
