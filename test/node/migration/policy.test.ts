/**
 * V1_ANSWER=legacy: v1 callers answered by the legacy backend through the gateway. The whole v1
 * suite runs against it (with every answer also computed by the facade and compared), then what
 * the backend received, and what a caller gets when the backend fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_V1_HEADERS, v1Suite } from '../../suites/v1.suite';
import { DEMO, json } from '../../support/harness';
import { LEGACY_AUTHORIZATION, legacyV1, type LegacyV1 } from '../../support/legacy-v1';
import { migrationApp, type MigrationApp } from '../../support/migration';
import { closedPort } from '../../support/upstream';

let legacy: LegacyV1;
let gateway: MigrationApp;
beforeAll(async () => {
  legacy = await legacyV1();
  gateway = migrationApp(legacy, { V1_ANSWER: 'legacy', V1_COMPARE_PERCENT: '100' });
});
afterAll(() => legacy.close());

v1Suite(() => gateway, DEFAULT_V1_HEADERS);

describe('legacy answering', () => {
  it('answered the suite from the backend, and the facade agreed with every answer', async () => {
    await gateway.settled();
    const answered = gateway.logs.filter((l) => (l.flags as string[] | undefined)?.includes('answeredByLegacy'));
    const compared = gateway.lines('v1 comparison');
    expect(answered.length, 'v1 requests answered by the backend').toBeGreaterThan(5000);
    expect(compared.length, 'every answered request compared').toBe(answered.length);
    expect(gateway.lines('v1 parity'), 'no difference').toEqual([]);
    expect(gateway.lines('v1 comparison not made')).toEqual([]);
    expect(compared.every((l) => l.matched === true && l.answered_by === 'legacy')).toBe(true);
  });

  it('never lets a caller credential reach the backend, in any place, and sends its own', async () => {
    const secrets = ['demo-project-key', 'demo-personal-token'];
    const before = legacy.seen.length;
    const sent: [string, Record<string, string>][] = [
      ['/v1/species?q=oak', { Authorization: DEMO.key }],
      ['/v1/species?q=oak', { Authorization: DEMO.personalToken }],
      ['/v1/species?q=oak', { 'x-api-key': 'demo-project-key' }],
      ['/api/v1/species/ABBA', { 'x-key': 'demo-personal-token' }],
      ['/v1/species?key=demo-project-key&q=oak&page=2', {}],
      ['/v1/genus?q=grass&token=demo-personal-token', {}],
      ['/v1/species?TOKEN=demo-personal-token&Api_Key=demo-project-key&q=oak', { Authorization: DEMO.key, Cookie: 'session=demo-project-key' }],
    ];
    for (const [path, headers] of sent) {
      const res = await gateway.get(path, headers);
      const text = await res.text();
      expect(res.status, `${path}: ${text.slice(0, 200)}`).toBe(200);
    }
    const received = legacy.seen.slice(before);
    expect(received.map((r) => r.url)).toEqual([
      '/api/v1/species?q=oak',
      '/api/v1/species?q=oak',
      '/api/v1/species?q=oak',
      '/api/v1/species/ABBA',
      '/api/v1/species?q=oak&page=2',
      '/api/v1/genus?q=grass',
      '/api/v1/species?q=oak',
    ]);
    for (const r of received) {
      expect(r.headers.authorization).toBe(LEGACY_AUTHORIZATION);
      expect(r.headers['svc-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      for (const s of secrets) expect(JSON.stringify(r), `${r.url} carries a caller secret`).not.toContain(s);
      expect(Object.keys(r.headers)).not.toContain('x-api-key');
      expect(Object.keys(r.headers)).not.toContain('cookie');
    }
  });

  it('checks access before asking the backend: 403 for a resource the key does not reach', async () => {
    const before = legacy.seen.length;
    const res = await gateway.get('/v1/genus', { Authorization: DEMO.speciesOnlyKey });
    expect(res.status).toBe(403);
    expect(await json(res)).toEqual({ statusCode: 403, message: expect.any(String) });
    expect(legacy.seen.length, 'not forwarded').toBe(before);
  });

  it('logs the route template and who answered', async () => {
    const res = await gateway.get('/api/v1/species/ABBA');
    const line = gateway.logs.findLast((l) => l.request_id === res.headers.get('Svc-Request-Id') && 'status' in l)!;
    expect(line).toMatchObject({ version: 'v1', route: 'GET /species/{id}', status: 200, flags: ['answeredByLegacy'], credential: 'apiKey' });
  });
});

describe('legacy backend failing', () => {
  const TIMEOUT = 300;
  it('unreachable: 502 in the v1 shape, deprecation headers kept', async () => {
    const down = migrationApp({ ...legacy, url: `${await closedPort()}/api/v1` }, { V1_ANSWER: 'legacy', UPSTREAM_TIMEOUT_MS: String(TIMEOUT) });
    const res = await down.get('/v1/species?q=oak');
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(502);
    expect(res.headers.get('Content-Type')).toBe('application/json');
    expect(body).toEqual({ statusCode: 502, message: expect.any(String) });
    expect(res.headers.get('Deprecation')).toBe(DEFAULT_V1_HEADERS.deprecation);
    expect(down.logs.some((l) => String(l.message).startsWith('legacy v1 backend connection failed'))).toBe(true);
  });

  // The statuses the v1 description gives this route (405 and 422 answer other routes).
  it.each([400, 404, 410])('its own v1 answer %i reaches the caller as it is, not as a failure', async (status) => {
    const t = migrationApp(legacy, { V1_ANSWER: 'legacy', UPSTREAM_RETRIES: '0' });
    const answer = { statusCode: status, message: `the backend's own ${status}` };
    legacy.fault = (res) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(answer));
    try {
      const res = await t.get('/v1/species/ABBA');
      expect([res.status, await json(res)]).toEqual([status, answer]);
      expect(res.headers.get('Deprecation')).toBe(DEFAULT_V1_HEADERS.deprecation);
    } finally {
      legacy.fault = undefined;
    }
  });

  it('answering 500: 502; hanging: 504 within the timeout', async () => {
    const t = migrationApp(legacy, { V1_ANSWER: 'legacy', UPSTREAM_TIMEOUT_MS: String(TIMEOUT), UPSTREAM_RETRIES: '0' });
    legacy.fault = (res) => res.writeHead(500).end('{"statusCode":500}');
    try {
      const broken = await t.get('/v1/species/ABBA');
      expect([broken.status, await json(broken)]).toEqual([502, { statusCode: 502, message: expect.any(String) }]);
      legacy.fault = () => {}; // never answers
      // The backend never answers: a 504 naming the timeout is the deadline's answer, however slow the machine.
      const slow = await t.get('/v1/species?q=oak');
      expect([slow.status, await json(slow)]).toEqual([504, { statusCode: 504, message: expect.stringContaining(`${TIMEOUT} ms`) }]);
    } finally {
      legacy.fault = undefined;
    }
  });

  it('refusing the gateway credential: 502 and an error line naming LEGACY_V1_AUTHORIZATION, never the secret', async () => {
    const t = migrationApp(legacy, { V1_ANSWER: 'legacy', LEGACY_V1_AUTHORIZATION: 'Bearer stale-legacy-secret' });
    const res = await t.get('/v1/species');
    expect(res.status).toBe(502);
    const line = t.logs.find((l) => l.level === 'error')!;
    expect(line.message).toContain('LEGACY_V1_AUTHORIZATION');
    expect(JSON.stringify(t.logs)).not.toContain('stale-legacy-secret');
  });
});
