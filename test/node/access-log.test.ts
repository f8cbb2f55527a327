import { describe, expect, it } from 'vitest';
import { CREDENTIAL_NAMES } from '../../src/core/query-string';
import { redactedTarget } from '../../src/core/redact';
import { noMetrics, type RequestObservation, UNMATCHED_ROUTE } from '../../src/services/metrics';
import type { RequestFacts } from '../../src/services/request-facts';
import { diskApp } from '../support/gateway';
import { DEMO } from '../support/harness';

describe('access log (docs/reference/requests.md)', () => {
  it('writes one JSON line per request with id, method, path, version, status, duration, subject and credential kind', async () => {
    const t = diskApp();
    const res = await t.get('/v2/species/ABBA');
    await t.get('/v2/species', { Authorization: DEMO.personalToken });
    await t.get('/nowhere', {});
    expect(t.logs).toHaveLength(3);
    expect(t.logs[0]).toMatchObject({
      request_id: res.headers.get('svc-request-id'),
      method: 'GET',
      path: '/v2/species/ABBA',
      version: 'v2',
      status: 200,
      subject: 'project:demo',
      credential: 'apiKey',
    });
    expect(typeof t.logs[0]!.duration_ms).toBe('number');
    expect(t.logs[0]!.time).toBe('2026-11-21T12:00:00.000Z');
    expect(t.logs[1]).toMatchObject({ subject: 'member:demo-member', credential: 'bearer' });
    expect(t.logs[2]).toMatchObject({ version: null, status: 404, subject: null });
  });

  it('never logs a secret, whatever the place or outcome', async () => {
    const t = diskApp();
    await t.get('/v2/species?key=demo-project-key&token=demo-personal-token&q=abies', { Authorization: 'ApiKey wrong-sekret-key' });
    await t.get('/v2/species', { Authorization: 'Bearer sekret-unknown-token' });
    await t.get('/v2/species', { 'x-api-key': 'demo-project-key' });
    const text = JSON.stringify(t.logs);
    for (const secret of ['demo-project-key', 'demo-personal-token', 'wrong-sekret-key', 'sekret-unknown-token']) expect(text).not.toContain(secret);
    expect(t.logs[0]!.path).toBe('/v2/species?key=[redacted]&token=[redacted]&q=abies');
  });

  it('redacts every credential-named query parameter, in any letter case and percent-encoded, used by the gateway or not', async () => {
    const t = diskApp();
    const spellings = [...CREDENTIAL_NAMES].flatMap((name) => [name, name.toUpperCase(), name[0]!.toUpperCase() + name.slice(1)]);
    const encoded = ['%6Bey', '%4B%45%59', 'api%5Fkey', 'Client%5FSecret', 'pass%77ord'];
    const names = [...spellings, ...encoded];
    const query = names.map((name, i) => `${name}=sekret-${i}`).join('&');
    await t.get(`/v2/species?q=abies&${query}&keystone=kept`, { Authorization: DEMO.key });
    const path = String(t.logs[0]!.path);
    expect(path, path).not.toMatch(/sekret-/);
    expect(path).toBe(`/v2/species?q=abies&${names.map((name) => `${name}=[redacted]`).join('&')}&keystone=kept`);
  });

  it('redacts credential-named parameters in any letter case', () => {
    expect(redactedTarget('https://h/v1/species?TOKEN=x&Access_Token=y&page=2')).toBe('/v1/species?TOKEN=[redacted]&Access_Token=[redacted]&page=2');
  });

  it('logs an unexpected failure and answers 500 svc/internalError without internals', async () => {
    const t = diskApp({
      services: {
        source: {
          list: async () => {
            throw new Error('database password is hunter2');
          },
          get: async () => undefined,
        },
      },
    });
    const res = await t.get('/v2/species');
    const text = await res.text();
    expect(res.status).toBe(500);
    expect(JSON.parse(text).code).toBe('svc/internalError');
    expect(text).not.toContain('hunter2');
    expect(res.headers.get('svc-request-id')).toBeTruthy();
    expect(t.logs.some((l) => l.level === 'error' && l.request_id === res.headers.get('svc-request-id'))).toBe(true);
  });
});

describe('what the access line and the request observation say of a request (docs/reference/observability.md)', () => {
  it('the client: its user agent cut at 256 characters, or null; the forwarded address only behind a trusted proxy', async () => {
    const t = diskApp();
    await t.get('/v2/species/ABBA', { Authorization: DEMO.key, 'User-Agent': `agent/${'x'.repeat(300)}`, 'X-Forwarded-For': '203.0.113.7' });
    await t.get('/v2/species/ABBA', { Authorization: DEMO.key });
    expect(t.logs[0]!.user_agent).toBe(`agent/${'x'.repeat(250)}`);
    expect(t.logs[1]!.user_agent).toBeNull();
    expect(t.logs[0]!.source_address).toBeNull();
    const proxied = diskApp({ env: { TRUST_PROXY: 'true' } });
    await proxied.get('/v2/species/ABBA', { Authorization: DEMO.key, 'X-Forwarded-For': '203.0.113.7' });
    expect(proxied.logs[0]!.source_address).toBe('203.0.113.7');
  });

  it('the route by its template, the health and token routes by their registered path, anything else as unmatched', async () => {
    const seen: RequestObservation[] = [];
    const facts: RequestFacts[] = [];
    const t = diskApp({ services: { metrics: { ...noMetrics, requestObserved: (o) => seen.push(o) }, recordRequest: (f) => facts.push(f) } });
    const detail = await t.get('/v2/species/ABBA', { Authorization: DEMO.key, 'User-Agent': 'probe/1' });
    const bytes = (await detail.arrayBuffer()).byteLength;
    await t.get('/api/v1/species?page=2', { Authorization: DEMO.key });
    await t.get('/healthz', {});
    await t.get('/nowhere', {});
    expect(seen.map((o) => [o.version, o.route, o.method, o.status, o.answeredBy, o.credentialPlace, o.subject])).toEqual([
      ['v2', '/species/{id}', 'GET', 200, 'gateway', 'apiKey', 'project:demo'],
      ['v1', '/species', 'GET', 200, 'gateway', 'apiKey', 'project:demo'],
      [null, '/healthz', 'GET', 200, 'gateway', null, null],
      [null, UNMATCHED_ROUTE, 'GET', 404, 'gateway', null, null],
    ]);
    expect(seen.every((o) => o.durationMs >= 0 && o.backend === undefined && o.cache === undefined)).toBe(true);
    // The same facts for a request sink, with the HTTP route under the base the caller used.
    expect(facts.map((f) => [f.route, f.httpRoute, f.target])).toEqual([
      ['GET /species/{id}', '/v2/species/{id}', '/v2/species/ABBA'],
      ['GET /species', '/api/v1/species', '/api/v1/species?page=2'],
      [null, null, '/healthz'],
      [null, null, '/nowhere'],
    ]);
    expect(facts[0]).toMatchObject({ method: 'GET', status: 200, responseBytes: bytes, userAgent: 'probe/1', answeredBy: 'gateway', subject: 'project:demo' });
    expect(facts[0]!.startedAtMs).toBe(t.clock.now() - facts[0]!.durationMs);
  });
});
