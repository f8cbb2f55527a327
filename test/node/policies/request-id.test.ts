/**
 * The policies that set a request's context, each alone in front of a stub route, without the
 * gateway or its dataset: the request id (docs/reference/requests.md), the trace and the caller's own id
 * (docs/reference/observability.md), the version a path belongs to with its headers, a retired version's 410 and its
 * brownouts, `HEAD`'s `Content-Length`, and a request body that stops arriving. The gateway-wide
 * cases are in the suites and in `access-log.test.ts`, `trace-context.test.ts`, `brownouts.test.ts`.
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { parseConfig, type ConfigVars } from '../../../src/config';
import type { AppEnv } from '../../../src/env';
import { ApiError } from '../../../src/core/api-error';
import { headLength } from '../../../src/policies/head';
import { asMiddleware } from '../../../src/policies/policy';
import { requestId } from '../../../src/policies/request-id';
import { respond } from '../../../src/policies/response-headers';
import { traceContext } from '../../../src/policies/trace-context';
import { identifiedInBrownout, retirement, versionContext } from '../../../src/policies/version-context';
import { ManualClock } from '../../../src/services/clock';
import { buildVersions } from '../../../src/versions';
import type { Version } from '../../../src/versions/version';

/** Renders a refusal as its status, code and detail. */
function rendering(app: Hono<AppEnv>) {
  app.onError((err) => {
    if (!(err instanceof ApiError)) throw err;
    return new Response(JSON.stringify({ code: err.code, detail: err.detail }), { status: err.status });
  });
  return app;
}

describe('the request id', () => {
  // Built in each test, so that the policy is made inside the test that checks it.
  function gateway() {
    const app = new Hono<AppEnv>();
    app.use(requestId());
    app.get('/core', (c) => respond(c, JSON.stringify({ id: c.get('requestId'), flags: c.get('logFlags') }), 200, { 'Content-Type': 'application/json' }));
    app.get('/text', (c) => c.text(c.get('requestId')));
    app.get('/redirect', (c) => c.redirect('/core', 301));
    return app;
  }

  it('gives every request a fresh id, the same on its response, never the caller’s, and no log flags yet', async () => {
    const app = gateway();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await app.request('/core', { headers: { 'Svc-Request-Id': 'caller-own-id' } });
      const body = (await res.json()) as { id: string; flags: string[] };
      expect(body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(res.headers.get('Svc-Request-Id')).toBe(body.id);
      expect(body.flags).toEqual([]);
      ids.push(body.id);
    }
    expect(new Set(ids).size).toBe(3);
  });

  it.each(['/text', '/redirect'])('%s: sets it on a response built without the policy headers too', async (path) => {
    const res = await gateway().request(path);
    expect(res.headers.get('Svc-Request-Id')).toMatch(/^[0-9a-f-]{36}$/);
    if (path === '/text') expect(res.headers.get('Svc-Request-Id')).toBe(await res.text());
  });
});

describe('the trace and the caller’s own id', () => {
  const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
  const INCOMING = `00-${TRACE}-00f067aa0ba902b7-00`;

  function app(trustTraceparent: boolean) {
    const hono = new Hono<AppEnv>();
    hono.use(asMiddleware(traceContext({ trustTraceparent })));
    hono.get('*', (c) => {
      const trace = c.get('trace');
      return c.json({ traceId: trace.traceId, parentId: trace.parentId ?? null, flags: trace.flags, clientRequestId: c.get('clientRequestId') ?? null });
    });
    return hono;
  }
  const ask = async (trust: boolean, headers: Record<string, string>) => (await app(trust).request('/', { headers })).json();

  it('continues the caller’s traceparent with TRUST_TRACEPARENT', async () => {
    expect(await ask(true, { traceparent: INCOMING })).toEqual({ traceId: TRACE, parentId: '00f067aa0ba902b7', flags: 0, clientRequestId: null });
  });

  it.each([
    ['without TRUST_TRACEPARENT', false, { traceparent: INCOMING }],
    ['with an invalid traceparent', true, { traceparent: INCOMING.toUpperCase() }],
    ['with none', true, {}],
  ])('starts a new sampled trace %s', async (_name, trust, headers) => {
    const seen = (await ask(trust, headers)) as { traceId: string; parentId: string | null; flags: number };
    expect(seen.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(seen.traceId).not.toBe(TRACE);
    expect(seen).toMatchObject({ parentId: null, flags: 1 });
  });

  it.each([
    ['a valid token', 'proxy-7f3a:42', 'proxy-7f3a:42'],
    ['128 visible characters', 'r'.repeat(128), 'r'.repeat(128)],
    ['129 characters', 'r'.repeat(129), null],
    ['a space', 'two words', null],
    ['empty', '', null],
  ])('keeps the caller’s Svc-Request-Id only when it is %s', async (_name, id, kept) => {
    expect(((await ask(false, { 'Svc-Request-Id': id })) as { clientRequestId: string | null }).clientRequestId).toBe(kept);
  });
});

describe('the version a path belongs to', () => {
  const versions = buildVersions(parseConfig({}));
  const app = new Hono<AppEnv>();
  app.use(versionContext(versions));
  app.get('*', (c) => respond(c, JSON.stringify({ version: c.get('version')?.name ?? null, base: c.get('base') }), 200, {}));

  it.each([
    ['/v2/species', 'v2', '/v2'],
    ['/v3/species/ABBA', 'v3', '/v3'],
    ['/v1/species', 'v1', '/v1'],
    ['/api/v1/species', 'v1', '/api/v1'],
    ['/healthz', null, ''],
    ['/v10/species', null, ''],
  ])('%s: version %s, base %j', async (path, version, base) => {
    expect(await (await app.request(path)).json()).toEqual({ version, base });
  });

  it('stamps the version’s own headers on its responses only (v1: Deprecation, Sunset)', async () => {
    const v1 = await app.request('/v1/species');
    expect(v1.headers.get('Deprecation')).toMatch(/^@\d+$/);
    expect(v1.headers.get('Sunset')).toBe('Sat, 31 Jul 2027 00:00:00 GMT');
    for (const path of ['/v2/species', '/healthz']) {
      const res = await app.request(path);
      expect([res.headers.get('Deprecation'), res.headers.get('Sunset')]).toEqual([null, null]);
    }
  });
});

describe('a retired version and its brownouts', () => {
  const SUNSET = '2027-07-31T00:00:00.000Z';

  function app(now: string, env: ConfigVars = {}, versions: readonly Version[] = buildVersions(parseConfig(env))) {
    const flags: string[][] = [];
    const hono = rendering(new Hono<AppEnv>());
    hono.use(async (c, next) => {
      c.set('logFlags', []);
      await next();
      flags.push(c.get('logFlags'));
    });
    // Authentication stands in as one that lets everyone through: inside a brownout its 410 comes after it.
    hono.use(
      versionContext(versions),
      asMiddleware(retirement(new ManualClock(Date.parse(now)))),
      asMiddleware(identifiedInBrownout({ before: () => undefined })),
    );
    hono.get('*', (c) => c.text('served'));
    const ask = async (path: string) => {
      const res = await hono.request(path);
      return { status: res.status, body: await res.text(), flags: flags.at(-1) };
    };
    return { ask };
  }

  it('serves v1 until its sunset, and answers 410 from that instant on', async () => {
    expect((await app('2027-07-30T23:59:59.999Z').ask('/v1/species')).status).toBe(200);
    const gone = { status: 410, body: JSON.stringify({ code: 'svc/gone', detail: `v1 was retired on ${SUNSET}; use /v2 at the same paths.` }), flags: [] };
    expect(await app(SUNSET).ask('/v1/species')).toEqual(gone);
    expect(await app('2028-01-01T00:00:00Z').ask('/api/v1/species/ABBA')).toEqual(gone);
    expect((await app('2028-01-01T00:00:00Z').ask('/v2/species')).status).toBe(200);
    expect((await app('2028-01-01T00:00:00Z').ask('/healthz')).status).toBe(200);
  });

  it('answers as retirement will during a brownout, for its interval only, and flags the request', async () => {
    const env = { V1_BROWNOUTS: '2027-05-04T14:00:00Z/PT1H' };
    expect(await app('2027-05-04T14:00:00Z', env).ask('/v1/species')).toEqual({
      status: 410,
      body: JSON.stringify({
        code: 'svc/gone',
        detail: `v1 is switched off until 2027-05-04T15:00:00.000Z ahead of its retirement on ${SUNSET}; use /v2 at the same paths.`,
      }),
      flags: ['brownout'],
    });
    for (const now of ['2027-05-04T13:59:59.999Z', '2027-05-04T15:00:00Z']) {
      expect(await app(now, env).ask('/v1/species')).toEqual({ status: 200, body: 'served', flags: [] });
    }
    expect((await app('2027-05-04T14:30:00Z', env).ask('/v2/species')).status).toBe(200);
  });

  it('words a brownout of a version with no retirement date yet without one', async () => {
    const rehearsing: Version = {
      name: 'vr',
      bases: ['/vr'],
      changes: [
        {
          name: 'rehearsal',
          description: 'Brownouts before a sunset is set.',
          brownouts: [{ start: Date.parse('2027-01-01T00:00:00Z'), end: Date.parse('2027-01-01T01:00:00Z') }],
        },
      ],
    };
    const during = await app('2027-01-01T00:30:00Z', {}, [rehearsing]).ask('/vr/species');
    expect(during).toEqual({
      status: 410,
      body: JSON.stringify({ code: 'svc/gone', detail: 'vr is switched off until 2027-01-01T01:00:00.000Z; use /v2 at the same paths.' }),
      flags: ['brownout'],
    });
    expect((await app('2027-01-01T01:00:00Z', {}, [rehearsing]).ask('/vr/species')).status).toBe(200);
  });
});

describe('HEAD', () => {
  const app = new Hono<AppEnv>();
  app.use(asMiddleware(headLength()));
  app.get('/text', (c) => c.text('Épinette'));
  app.get('/sized', (c) => c.body('short', 200, { 'Content-Length': '5' }));
  app.get('/empty', (c) => c.body(null, 204));

  it('sends the Content-Length GET’s body would have, in bytes, without the body', async () => {
    const res = await app.request('/text', { method: 'HEAD' });
    expect(res.headers.get('Content-Length')).toBe(String(new TextEncoder().encode('Épinette').byteLength));
    expect(await res.text()).toBe('');
  });

  it('leaves GET, a length the route set, and an answer without a body as they are', async () => {
    expect((await app.request('/text')).headers.get('Content-Length')).toBeNull();
    expect((await app.request('/sized', { method: 'HEAD' })).headers.get('Content-Length')).toBe('5');
    expect((await app.request('/empty', { method: 'HEAD' })).headers.get('Content-Length')).toBeNull();
  });
});
