import { describe, expect, it } from 'vitest';
import { json, type SuiteClient } from './client';

/**
 * Search text rules (docs/reference/requests.md) as a client sees them on every runtime: a `q` with a
 * control character or folding to nothing is 400 `svc/invalidParameter` (v1: the legacy body),
 * and a match never spans two fields.
 */
export function searchTextSuite(client: () => SuiteClient): void {
  describe('search text', () => {
    for (const q of ['%00', 'balsamea%00balsam', '%7F', '%C2%85', '%CC%81', '%20%20']) {
      it(`q=${q}: 400 svc/invalidParameter naming q, in v2 and v1`, async () => {
        const v2 = await client().get(`/v2/species?q=${q}`);
        const problem = await json(v2);
        expect(v2.status, JSON.stringify(problem)).toBe(400);
        expect(problem).toMatchObject({ code: 'svc/invalidParameter', detail: expect.stringContaining('"q"') });
        const v1 = await client().get(`/v1/species?q=${q}`);
        const legacy = await json(v1);
        expect(v1.status, JSON.stringify(legacy)).toBe(400);
        expect(legacy).toEqual({ statusCode: 400, message: expect.stringContaining('"q"') });
      });
    }

    it('never matches the end of one field plus the start of the next', async () => {
      // ABBA: scientific_name "Abies balsamea", common_name "balsam fir".
      const within = await json(await client().get('/v2/species?q=abies%20balsamea'));
      expect(within.data.map((r: { id: string }) => r.id)).toContain('ABBA');
      const across = await json(await client().get('/v2/species?q=balsamea%20balsam'));
      expect(across.data.map((r: { id: string }) => r.id)).not.toContain('ABBA');
    });
  });
}
