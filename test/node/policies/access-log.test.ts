/**
 * The access line's policy on its own (src/policies/access-log.ts), in front of stub routes that
 * play what the gateway's other parts leave on a request: the backend calls and the upstream
 * cache's result, log flags, a refused credential, the caller's request id, a caller that went
 * away. What the whole gateway writes is in `access-log.test.ts`; this file pins each member the
 * line and the request observation carry, and who is said to have answered.
 */
import { Hono } from 'hono';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type BackendCall, type CacheResult, RequestTrace } from '../../../src/core/request-trace';
import type { AppEnv, AuthFailureLog } from '../../../src/env';
import { accessLog } from '../../../src/policies/access-log';
import { ClientGone } from '../../../src/policies/client-body';
import { asMiddleware } from '../../../src/policies/policy';
import { ManualClock } from '../../../src/services/clock';
import { noMetrics, type RequestObservation, UNMATCHED_ROUTE } from '../../../src/services/metrics';
import type { RequestFacts } from '../../../src/services/request-facts';
import type { LogLine } from '../../../src/services/log';
import { CREDENTIAL_NAMES } from '../../../src/core/query-string';
import { redactedTarget } from '../../../src/core/redact';
import { diskApp } from '../../support/gateway';
import { DEMO } from '../../support/harness';
import { fetchHeader } from '../../../src/services/request-header';

/** What a stub route leaves on the request for the access line to read. */
interface Scene {
  calls?: BackendCall[];
  cache?: CacheResult;
  flags?: string[];
  authFailure?: AuthFailureLog;
  clientRequestId?: string;
  status?: number;
  /** The handler fails the way a half-read body does. */
  throwGone?: boolean;
}

const ok = (durationMs: number, status = 200): BackendCall => ({ backend: 'upstream', status, durationMs, outcome: 'ok' });
const timeout = (durationMs: number): BackendCall => ({ backend: 'upstream', status: null, durationMs, outcome: 'timeout' });

/**
 * The policy in front of `/scene` (which plays `scene`), `/healthz` and a catch-all, with a second
 * middleware between them as a real chain has; its lines, observations and request facts as written,
 * a line as the JSON it is written as.
 */
function gateway(scene: Scene, options: { gone?: boolean } = {}) {
  const lines: Record<string, unknown>[] = [];
  const seen: RequestObservation[] = [];
  const facts: RequestFacts[] = [];
  const clock = new ManualClock(Date.parse('2026-11-27T12:00:00Z'));
  const policy = accessLog(
    { trustProxy: false },
    {
      log: (line: LogLine) => lines.push(JSON.parse(JSON.stringify(line)) as Record<string, unknown>),
      clock,
      clientGone: () => options.gone === true,
      connection: () => ({ tls: true, remoteAddress: '192.0.2.9' }),
      header: fetchHeader,
      recordRequest: (f) => facts.push(f),
      metrics: { ...noMetrics, requestObserved: (o) => seen.push(o) },
    },
  );
  const app = new Hono<AppEnv>();
  app.use(asMiddleware(policy));
  app.use(async (c, next) => {
    const trace = RequestTrace.start();
    c.set('trace', trace);
    c.set('logFlags', []);
    if (scene.clientRequestId !== undefined) c.set('clientRequestId', scene.clientRequestId);
    await next();
  });
  app.get('/scene', (c) => {
    const trace = c.get('trace');
    for (const call of scene.calls ?? []) trace.noteCall(call);
    trace.cache = scene.cache;
    c.get('logFlags').push(...(scene.flags ?? []));
    if (scene.authFailure) c.set('authFailure', scene.authFailure);
    if (scene.throwGone) throw new ClientGone();
    return c.text('scene', (scene.status ?? 200) as 200);
  });
  app.get('/healthz', (c) => c.text('ok'));
  app.onError((_err, c) => c.text('failed', 400));
  app.notFound((c) => c.text('none', 404));
  return { app, lines, seen, facts, clock };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the access line of a request the gateway answered alone', () => {
  it('has no backend, cache, flag, refusal or caller request id members, and is not marked aborted', async () => {
    const { app, lines, seen } = gateway({});
    const res = await app.request('https://api.example/scene');
    expect(res.status).toBe(200);
    const line = lines[0]!;
    for (const member of [
      'backend',
      'backend_status',
      'backend_outcome',
      'backend_duration_ms',
      'upstream_cache',
      'flags',
      'auth_failure',
      'client_request_id',
      'aborted',
      'level',
    ]) {
      expect(line, member).not.toHaveProperty(member);
    }
    expect(line).toMatchObject({ method: 'GET', path: '/scene', status: 200, response_bytes: 5, version: null, route: null });
    expect(seen[0]).toMatchObject({ status: 200, answeredBy: 'gateway', backend: undefined, cache: undefined });
  });

  it('carries the caller request id, the flags and the refused credential when the request had them', async () => {
    const authFailure: AuthFailureLog = { place: 'authorization', code: 'svc/invalidCredential', client_id: null, source_address: '192.0.2.9' };
    const { app, lines } = gateway({ clientRequestId: 'client-7', flags: ['brownout', 'apiKeyFromBrowser'], authFailure, status: 401 });
    await app.request('https://api.example/scene');
    expect(lines[0]).toMatchObject({ client_request_id: 'client-7', flags: ['brownout', 'apiKeyFromBrowser'], auth_failure: authFailure, status: 401 });
  });
});

describe('its time', () => {
  it('is the time from the first policy to the answer, in milliseconds rounded to hundredths', async () => {
    const ticks = [1_000, 1_012.34567];
    vi.spyOn(performance, 'now').mockImplementation(() => ticks.shift() ?? 2_000);
    const { app, lines, seen, facts, clock } = gateway({});
    await app.request('https://api.example/scene');
    expect(lines[0]!.duration_ms).toBe(12.35);
    expect(seen[0]!.durationMs).toBeCloseTo(12.34567, 6);
    expect(facts[0]!.startedAtMs).toBe(clock.now() - 12.35);
  });
});

describe('what it says of the backends', () => {
  it('the last call (backend, status, outcome) with the time of all calls, and the upstream cache result', async () => {
    const { app, lines, seen } = gateway({ calls: [timeout(30.004), ok(12.5)], cache: 'miss' });
    await app.request('https://api.example/scene');
    expect(lines[0]).toMatchObject({ backend: 'upstream', backend_status: 200, backend_outcome: 'ok', backend_duration_ms: 42.5, upstream_cache: 'miss' });
    // The observation's backend is the last call, timed as all of them.
    expect(seen[0]!.backend).toEqual({ backend: 'upstream', status: 200, outcome: 'ok', durationMs: 42.5 });
    expect(seen[0]!.cache).toBe('miss');
  });

  it('a cache result without a call: the cache member only', async () => {
    const { app, lines, seen } = gateway({ cache: 'hit' });
    await app.request('https://api.example/scene');
    expect(lines[0]!.upstream_cache).toBe('hit');
    expect(lines[0]).not.toHaveProperty('backend');
    expect(seen[0]!.backend).toBeUndefined();
  });
});

describe('who answered (docs/reference/observability.md)', () => {
  const rows: Array<[name: string, scene: Scene, answeredBy: 'upstream' | 'gateway']> = [
    ['a backend answer used', { calls: [ok(5)] }, 'upstream'],
    ['a retry that succeeded after a timeout', { calls: [timeout(5), ok(5)] }, 'upstream'],
    ['a success followed by a failed call', { calls: [ok(5), timeout(5)] }, 'gateway'],
    ['a backend answer, then a 500 from the gateway', { calls: [ok(5)], status: 500 }, 'gateway'],
    ['a backend answer, then a 499', { calls: [ok(5)], status: 499 }, 'upstream'],
    ['a backend answer, then a 503', { calls: [ok(5)], status: 503 }, 'gateway'],
    ['a stale cached copy', { calls: [ok(5)], cache: 'stale' }, 'gateway'],
    ['a fresh cached copy', { cache: 'hit' }, 'gateway'],
    ["another request's call, joined", { cache: 'coalesced' }, 'upstream'],
    ['no backend', {}, 'gateway'],
  ];
  it.each(rows)('%s: %s', async (_name, scene, answeredBy) => {
    const { app, seen, facts } = gateway(scene);
    await app.request('https://api.example/scene');
    expect(seen[0]!.answeredBy).toBe(answeredBy);
    expect(facts[0]!.answeredBy).toBe(answeredBy);
  });
});

describe('a caller that went away', () => {
  const rows: Array<[name: string, scene: Scene, options: { gone?: boolean }]> = [
    ['its connection closed before the answer', {}, { gone: true }],
    ['its body stopped arriving', { throwGone: true, calls: [ok(5)] }, {}],
  ];
  it.each(rows)('%s: logged at info, aborted, with no status or size, answered by the gateway', async (_name, scene, options) => {
    const { app, lines, seen } = gateway(scene, options);
    await app.request('https://api.example/scene');
    expect(lines[0]).toMatchObject({ level: 'info', aborted: true, status: null, response_bytes: null });
    expect(seen[0]).toMatchObject({ status: null, answeredBy: 'gateway' });
  });

  it('a handler failure of its own is not an abort', async () => {
    const { app, lines } = gateway({});
    app.get('/broken', () => {
      throw new Error('boom');
    });
    await app.request('https://api.example/broken');
    expect(lines[0]).not.toHaveProperty('aborted');
    expect(lines[0]!.status).toBe(400);
  });
});

describe('the route of an unversioned request', () => {
  it('is the path its route was registered with, even with several middlewares before it; a path no route has is unmatched', async () => {
    const { app, seen } = gateway({});
    await app.request('https://api.example/healthz');
    await app.request('https://api.example/elsewhere');
    expect(seen.map((o) => o.route)).toEqual(['/healthz', UNMATCHED_ROUTE]);
  });
});

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
