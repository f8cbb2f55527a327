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
      const answers = await Promise.all(['/v2/species/ABBA', '/v2/species/ABAM', '/v2/genus/Abies', '/v2/species/ABBA'].map((p) => get(p)));
      // Without a validator the answer is always the full 200.
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      const tags = answers.map((r) => r.headers.get('etag'));
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

    it('If-None-Match: * and a weak or listed tag match the current representation (weak comparison)', async () => {
      const tag = (await get('/v2/species/ABBA')).headers.get('etag')!;
      for (const header of ['*', ' * ', `W/${tag}`, `"another", ${tag}`, `"another",W/${tag} `]) {
        const res = await get('/v2/species/ABBA', { 'If-None-Match': header });
        expect(res.status, header).toBe(304);
      }
      for (const header of ['"another"', `${tag.slice(0, -2)}"`, `"W/${tag.slice(1)}`, '*, "another"']) {
        const res = await get('/v2/species/ABBA', { 'If-None-Match': header });
        expect(res.status, header).toBe(200);
      }
    });

    // Each HTTP-date form (RFC 9110 5.6.7) on either side of Last-Modified; impossible dates are ignored, not rolled over.
    it.each([
      ['Wednesday, 18-Mar-26 00:00:00 GMT', 304],
      ['Tuesday, 17-Mar-26 23:59:59 GMT', 200],
      ['Sunday, 01-Jan-69 00:00:00 GMT', 304],
      ['Thursday, 01-Jan-70 00:00:00 GMT', 200],
      ['Wed Mar 18 00:00:00 2026', 304],
      ['Tue Mar 17 23:59:59 2026', 200],
      ['Wed Apr  1 00:00:00 2026', 304],
      ['Thu, 19 Mar 2026 23:59:59 GMT', 304],
      ['Thu, 19 Mar 2026 12:30:60 GMT', 304],
      ['Thu, 31 Dec 2026 23:59:60 GMT', 304],
      ['Thu, 19 Mar 2026 12:30:61 GMT', 200],
      ['Thu, 19 Mar 2026 23:60:00 GMT', 200],
      ['Thu, 19 Mar 2026 12:60:00 GMT', 200],
      ['Thu, 19 Mar 2026 24:00:00 GMT', 200],
      ['Thu, 31 Apr 2026 00:00:00 GMT', 200],
      ['Fri, 19 Foo 2027 00:00:00 GMT', 200],
      ['Thu, 19 Mar 2026 00:00:00 UTC', 200],
      ['x Thu, 19 Mar 2026 00:00:00 GMT', 200],
      ['Thursday, 19-Mar-26 00:00:00 GMT x', 200],
      ['x Thu Mar 19 00:00:00 2026', 200],
      ['Thu Mar 19 00:00:00 2026 x', 200],
    ])('If-Modified-Since %j gives %i', async (since, status) => {
      const res = await get('/v2/species/ABBA', { 'If-Modified-Since': since });
      expect(res.status).toBe(status);
    });

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
