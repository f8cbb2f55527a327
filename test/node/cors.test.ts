import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { AppEnv } from '../../src/env';
import { browsers } from '../../src/policies/cors';
import { requestId } from '../../src/policies/request-id';
import { versionContext } from '../../src/policies/version-context';
import type { Version } from '../../src/versions/version';
import { corsSuite } from '../suites/cors.suite';
import { DEMO, testApp } from '../support/harness';

corsSuite(() => testApp());

const ORIGIN = { Origin: 'https://field-guide.example' };

describe('API keys from browsers', () => {
  const rows: Array<{ name: string; headers: Record<string, string>; flagged: boolean }> = [
    { name: 'an API key with an Origin', headers: { ...ORIGIN, Authorization: DEMO.key }, flagged: true },
    { name: 'the species-only API key with an Origin', headers: { ...ORIGIN, Authorization: DEMO.speciesOnlyKey }, flagged: true },
    { name: 'an API key without an Origin', headers: { Authorization: DEMO.key }, flagged: false },
    { name: 'a personal token with an Origin', headers: { ...ORIGIN, Authorization: DEMO.personalToken }, flagged: false },
    { name: 'an unknown API key with an Origin (no project to tell)', headers: { ...ORIGIN, Authorization: 'ApiKey nope' }, flagged: false },
  ];
  for (const row of rows) {
    it(`${row.flagged ? 'flags' : 'does not flag'} ${row.name}`, async () => {
      const t = testApp();
      const res = await t.get('/v2/species', row.headers);
      if (row.flagged) expect(res.status, await res.text()).toBe(200);
      expect(t.logs).toHaveLength(1);
      if (row.flagged) expect(t.logs[0]!.flags).toEqual(['apiKeyFromBrowser']);
      else expect(t.logs[0]!.flags).toBeUndefined();
    });
  }
});

describe('a version that opts out of CORS (withoutCors)', () => {
  const legacy: Version = { name: 'legacy', bases: ['/legacy'], changes: [{ name: 'no-cors', description: 'no browsers', withoutCors: true }] };
  const modern: Version = { name: 'modern', bases: ['/modern'], changes: [] };
  const app = new Hono<AppEnv>();
  app.use(requestId(), versionContext([legacy, modern]), browsers());
  app.all('*', (c) => c.text(c.req.method));

  for (const [version, answers] of [
    ['legacy', false],
    ['modern', true],
  ] as const) {
    it(`${version}: ${answers ? 'answers' : 'does not answer'} preflights and CORS requests`, async () => {
      const preflight = await app.request(`/${version}/species`, { method: 'OPTIONS', headers: { ...ORIGIN, 'Access-Control-Request-Method': 'GET' } });
      expect(preflight.status).toBe(answers ? 204 : 200);
      const res = await app.request(`/${version}/species`, { headers: ORIGIN });
      expect(res.headers.get('Access-Control-Allow-Origin')).toBe(answers ? '*' : null);
    });
  }
});
