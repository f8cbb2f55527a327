/**
 * The CORS policy on its own (src/policies/cors.ts), before authentication and any route: where
 * preflights are answered and how, what a CORS answer lets a browser read, and which requests the
 * log flags as an API key sent from a browser. The gateway-wide cases are in
 * `test/suites/cors.suite.ts` and `cors.test.ts`.
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config';
import type { AppEnv } from '../../../src/env';
import { browsers } from '../../../src/policies/cors';
import { requestId } from '../../../src/policies/request-id';
import { versionContext } from '../../../src/policies/version-context';
import type { Principal } from '../../../src/services/credentials/credential-store';
import { buildVersions } from '../../../src/versions';
import type { Version } from '../../../src/versions/version';
import { corsSuite } from '../../suites/cors.suite';
import { DEMO, testApp } from '../../support/harness';

const ORIGIN = 'https://field-guide.example';
const EXPOSED = 'Svc-Request-Id,RateLimit,RateLimit-Policy,Retry-After,ETag,Last-Modified,WWW-Authenticate';

/** The policy behind the version's, a caller of the kind `X-Test-Caller` names (as authentication would set it), and the log's flags of each request. */
function gateway() {
  const flags: string[][] = [];
  const app = new Hono<AppEnv>();
  app.use(requestId(), async (c, next) => {
    await next();
    flags.push([...c.get('logFlags')]);
  });
  app.use(versionContext(buildVersions(parseConfig({}))), browsers(), async (c, next) => {
    const kind = c.req.header('X-Test-Caller') as Principal['kind'] | undefined;
    if (kind) c.set('caller', { principal: { kind, id: 'demo', access: { resources: [], preview: false } }, credential: 'test' });
    await next();
  });
  app.all('*', (c) => c.text(`served ${c.req.method}`, 200, { 'X-Served': c.req.method }));
  return { app, flags };
}

const preflight = (app: Hono<AppEnv>, path: string) =>
  app.request(path, {
    method: 'OPTIONS',
    headers: { Origin: ORIGIN, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'authorization' },
  });

describe('preflights', () => {
  it.each(['/v2/species', '/v3/species/ABBA', '/v2/openapi.json', '/v1/openapi.json'])('%s: answered here, 204, kept by no HTTP cache', async (path) => {
    const res = await preflight(gateway().app, path);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(res.headers.get('Access-Control-Allow-Methods')).toBe('GET,HEAD');
    expect(res.headers.get('Access-Control-Allow-Headers')).toBe('Authorization,If-None-Match');
    expect(res.headers.get('Access-Control-Max-Age')).toBe('7200');
    expect(res.headers.get('Access-Control-Allow-Credentials')).toBeNull();
    expect(res.headers.get('Cache-Control')).toBe('no-store');
    expect(res.headers.get('Svc-Request-Id')).toBeTruthy();
  });

  it.each(['/v1/species', '/api/v1/species', '/oauth/token', '/healthz', '/v1/openapi.jsonx'])('%s: not answered here, no CORS', async (path) => {
    const res = await preflight(gateway().app, path);
    expect(await res.text()).toBe('served OPTIONS');
    expect(res.headers.get('Access-Control-Allow-Origin')).toBeNull();
    expect(res.headers.get('Cache-Control')).toBeNull();
  });
});

describe('a CORS request', () => {
  it.each(['/v2/species', '/v3/species', '/v1/openapi.json'])('%s: any origin may read it and the exposed headers', async (path) => {
    const res = await gateway().app.request(path, { headers: { Origin: ORIGIN } });
    expect(await res.text()).toBe('served GET');
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(res.headers.get('Access-Control-Expose-Headers')).toBe(EXPOSED);
  });

  it.each(['HEAD', 'POST'])('%s: goes on to the route, with the CORS headers (only OPTIONS is a preflight)', async (method) => {
    const res = await gateway().app.request('/v2/species', { method, headers: { Origin: ORIGIN } });
    expect(res.headers.get('X-Served')).toBe(method);
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
  });

  it.each(['/v1/species', '/oauth/token', '/healthz'])('%s: no CORS headers', async (path) => {
    const res = await gateway().app.request(path, { headers: { Origin: ORIGIN } });
    expect(res.headers.get('Access-Control-Allow-Origin')).toBeNull();
    expect(res.headers.get('Access-Control-Expose-Headers')).toBeNull();
  });
});

describe('an API key sent from a browser', () => {
  it.each([
    ['a project, with an Origin', { 'X-Test-Caller': 'project', Origin: ORIGIN }, ['apiKeyFromBrowser']],
    ['a project, without an Origin', { 'X-Test-Caller': 'project' }, []],
    ['a member, with an Origin', { 'X-Test-Caller': 'member', Origin: ORIGIN }, []],
    ['an OAuth client, with an Origin', { 'X-Test-Caller': 'client', Origin: ORIGIN }, []],
    ['no caller, with an Origin', { Origin: ORIGIN }, []],
  ])('%s: flags %j', async (_name, headers, flagged) => {
    const { app, flags } = gateway();
    expect((await app.request('/v2/species', { headers })).status).toBe(200);
    expect(flags).toEqual([flagged]);
  });

  it('is flagged on a version without CORS too', async () => {
    const { app, flags } = gateway();
    await app.request('/v1/species', { headers: { 'X-Test-Caller': 'project', Origin: ORIGIN } });
    expect(flags).toEqual([['apiKeyFromBrowser']]);
  });
});

corsSuite(() => testApp());

const ORIGIN_HEADER = { Origin: 'https://field-guide.example' };

describe('API keys from browsers', () => {
  const rows: Array<{ name: string; headers: Record<string, string>; flagged: boolean }> = [
    { name: 'an API key with an Origin', headers: { ...ORIGIN_HEADER, Authorization: DEMO.key }, flagged: true },
    { name: 'the species-only API key with an Origin', headers: { ...ORIGIN_HEADER, Authorization: DEMO.speciesOnlyKey }, flagged: true },
    { name: 'an API key without an Origin', headers: { Authorization: DEMO.key }, flagged: false },
    { name: 'a personal token with an Origin', headers: { ...ORIGIN_HEADER, Authorization: DEMO.personalToken }, flagged: false },
    { name: 'an unknown API key with an Origin (no project to tell)', headers: { ...ORIGIN_HEADER, Authorization: 'ApiKey nope' }, flagged: false },
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
      const preflight = await app.request(`/${version}/species`, { method: 'OPTIONS', headers: { ...ORIGIN_HEADER, 'Access-Control-Request-Method': 'GET' } });
      expect(preflight.status).toBe(answers ? 204 : 200);
      const res = await app.request(`/${version}/species`, { headers: ORIGIN_HEADER });
      expect(res.headers.get('Access-Control-Allow-Origin')).toBe(answers ? '*' : null);
    });
  }
});
