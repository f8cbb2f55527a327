/** Rate-limit headers as a client sees them (docs/reference/access.md), under the default limits. */
import { describe, expect, it } from 'vitest';
import { DEMO, type SuiteClient } from './client';

/** `"default";q=120;w=60` and `"default";r=119;t=60` (IETF httpapi ratelimit-headers draft). */
export const POLICY_SYNTAX = /^"default";q=(\d+);w=60$/;
export const RATELIMIT_SYNTAX = /^"default";r=(\d+);t=(\d+)$/;

export function rateLimitSuite(client: () => SuiteClient): void {
  describe('rate-limit headers', () => {
    for (const [name, path, headers] of [
      ['a list for an API key', '/v2/species', { Authorization: DEMO.key }],
      ['a detail for a personal token', '/v2/species/ABBA', { Authorization: DEMO.personalToken }],
    ] as const) {
      it(`are on a successful response: ${name}`, async () => {
        const res = await client().get(path, headers);
        expect(res.status, await res.text()).toBe(200);
        const policy = POLICY_SYNTAX.exec(res.headers.get('RateLimit-Policy') ?? '');
        const state = RATELIMIT_SYNTAX.exec(res.headers.get('RateLimit') ?? '');
        expect(policy, res.headers.get('RateLimit-Policy') ?? 'no RateLimit-Policy').not.toBeNull();
        expect(state, res.headers.get('RateLimit') ?? 'no RateLimit').not.toBeNull();
        expect(Number(state![1])).toBeLessThan(Number(policy![1]));
        expect(Number(state![2])).toBeGreaterThanOrEqual(1);
        expect(Number(state![2])).toBeLessThanOrEqual(60);
        expect(res.headers.get('Retry-After')).toBeNull();
      });
    }

    it('are not on a response to an unauthenticated request (nobody is counted)', async () => {
      const res = await client().get('/v2/species', {});
      expect(res.status).toBe(401);
      expect(res.headers.get('RateLimit')).toBeNull();
    });
  });
}
