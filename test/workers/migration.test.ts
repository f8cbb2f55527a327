/**
 * Migration controls inside workerd: comparisons run in `waitUntil` after the response, legacy
 * answering through the gateway, brownouts on the gateway's clock; log lines on the console.
 */
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { ManualClock } from '../../src/services/clock';
import { buildGateway } from '../../src/worker/gateway';
import { DEMO, json } from '../suites/client';

const LEGACY = { LEGACY_V1_AUTHORIZATION: 'Bearer legacy-backend-secret-of-the-gateway', UPSTREAM_TIMEOUT_MS: '2000' };

/** A request to a gateway built with `vars`, and the console lines written until its `waitUntil` work is done. */
async function logged(vars: Record<string, string>, path: string, clock?: ManualClock) {
  const lines: Record<string, unknown>[] = [];
  const spy = vi.spyOn(console, 'log').mockImplementation((text: string) => void lines.push(JSON.parse(text)));
  const gateway = buildGateway({ ...env, ...LEGACY, ...vars }, clock);
  const ctx = createExecutionContext();
  const res = await gateway.fetch(new Request(new URL(path, 'https://localhost'), { headers: { Authorization: DEMO.key } }), env, ctx);
  const body = await json(res);
  await waitOnExecutionContext(ctx);
  spy.mockRestore();
  return { res, body, lines, of: (message: string) => lines.filter((l) => l.message === message) };
}

afterEach(() => vi.restoreAllMocks());

describe('migration controls on Workers', () => {
  it('facade answering: compares in waitUntil, after the response, and finds parity', async () => {
    const r = await logged({ LEGACY_V1_URL: inject('legacyUrl'), V1_COMPARE_PERCENT: '100' }, '/v1/species?q=oak&page=3');
    expect(r.res.status).toBe(200);
    expect(r.of('v1 comparison')).toMatchObject([
      { route: 'GET /species', answered_by: 'facade', matched: true, request_id: r.res.headers.get('Svc-Request-Id') },
    ]);
    expect(r.of('v1 parity')).toEqual([]);
  });

  it('writes one v1 parity line for a difference, with route and JSON path', async () => {
    const r = await logged({ LEGACY_V1_URL: inject('differingLegacyUrl'), V1_COMPARE_PERCENT: '100' }, '/v1/species/ACAM');
    expect(r.body.rank).toBe('SPECIES');
    expect(r.of('v1 parity')).toMatchObject([
      { level: 'warn', route: 'GET /species/{id}', json_path: 'rank', facade: 'SPECIES', legacy: 'species', path: '/v1/species/ACAM' },
    ]);
  });

  it("v1 names languages as on Node: a species with Atikamekw, Cree, Innu-aimun, Ojibwa, Chipewyan and Mi'kmaw names compares equal", async () => {
    for (const id of ['ACMI2', 'ARTR']) {
      const r = await logged({ LEGACY_V1_URL: inject('legacyUrl'), V1_COMPARE_PERCENT: '100' }, `/v1/species/${id}`);
      expect(Object.keys(r.body.common_names), id).not.toContain('cr');
      expect(r.of('v1 parity'), id).toEqual([]);
      expect(r.of('v1 comparison'), id).toMatchObject([{ matched: true }]);
    }
  });

  it('legacy answering: the backend answers, the facade is compared in waitUntil', async () => {
    const r = await logged({ LEGACY_V1_URL: inject('differingLegacyUrl'), V1_ANSWER: 'legacy', V1_COMPARE_PERCENT: '100' }, '/api/v1/species/ACAM');
    expect(r.res.status).toBe(200);
    expect(r.body.rank, 'the legacy backend answered').toBe('species');
    expect(r.res.headers.get('Deprecation')).toMatch(/^@\d+$/);
    expect(r.lines.find((l) => l.request_id === r.res.headers.get('Svc-Request-Id') && 'status' in l)).toMatchObject({
      flags: ['answeredByLegacy'],
      route: 'GET /species/{id}',
    });
    expect(r.of('v1 parity')).toMatchObject([{ answered_by: 'legacy', json_path: 'rank' }]);
  });

  it('a brownout answers 410 in the v1 shape on the gateway clock', async () => {
    const vars = { V1_BROWNOUTS: '2027-05-04T14:00:00Z/PT1H' };
    const inside = await logged(vars, '/v1/species', new ManualClock(Date.parse('2027-05-04T14:59:59Z')));
    expect([inside.res.status, inside.body]).toEqual([410, { statusCode: 410, message: expect.stringContaining('/v2') }]);
    const after = await logged(vars, '/v1/species', new ManualClock(Date.parse('2027-05-04T15:00:00Z')));
    expect(after.res.status).toBe(200);
  });
});
