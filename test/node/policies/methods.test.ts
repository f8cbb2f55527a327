/**
 * The method policies on their own (src/policies/methods.ts), before any route or dataset: which
 * methods each path serves, the `Allow` and the message of a 405, and the same list for a bare
 * path (Node's CONNECT). The gateway-wide cases are in `test/suites/methods.suite.ts`.
 */
import { Hono } from 'hono';
import { describe, expect, it, beforeAll } from 'vitest';
import { parseConfig } from '../../../src/config';
import type { AppEnv } from '../../../src/env';
import { ApiError } from '../../../src/core/api-error';
import { browsers } from '../../../src/policies/cors';
import { hostCheck } from '../../../src/policies/host';
import { allowedAt, orList, servedMethods, unknownMethods } from '../../../src/policies/methods';
import { asMiddleware } from '../../../src/policies/policy';
import { requestId } from '../../../src/policies/request-id';
import { transport } from '../../../src/policies/transport';
import { versionContext } from '../../../src/policies/version-context';
import { ManualClock } from '../../../src/services/clock';
import { buildVersions } from '../../../src/versions';
import { DEMO, json, testApp } from '../../support/harness';
import { methodsSuite } from '../../suites/methods.suite';
import { fetchHeader } from '../../../src/services/request-header';

const config = parseConfig({});
const versions = buildVersions(config);

/**
 * The policies in the gateway's order around the method checks: transport between the two, so a
 * method no route serves is refused even over plain HTTP, and one the path does not serve is
 * redirected or refused (426) first. No peer address: `localhost` counts as https, other hosts not.
 */
function gateway() {
  const app = new Hono<AppEnv>();
  const services = { connection: () => ({ tls: false }), header: fetchHeader, clock: new ManualClock(Date.parse('2026-11-21T12:00:00Z')), log: () => {} };
  app.use(requestId(), versionContext(versions), asMiddleware(hostCheck(config)), asMiddleware(unknownMethods()));
  app.use(asMiddleware(transport(config, services)), browsers(), asMiddleware(servedMethods()));
  app.all('*', (c) => c.text('served'));
  app.onError((err) => {
    if (!(err instanceof ApiError)) throw err;
    return new Response(JSON.stringify({ code: err.code, detail: err.detail }), { status: err.status, headers: err.headers });
  });
  return app;
}

/** Each path and the methods it serves, as `Allow` lists them. */
const SERVED: Array<[string, string]> = [
  ['/healthz', 'GET, HEAD'],
  ['/v2/species', 'GET, HEAD, OPTIONS'],
  ['/v2/species/ABBA', 'GET, HEAD, OPTIONS'],
  ['/v3/species', 'GET, HEAD, OPTIONS'],
  ['/v1/species', 'GET, HEAD'],
  ['/api/v1/species', 'GET, HEAD'],
  ['/v1/openapi.json', 'GET, HEAD, OPTIONS'],
  ['/v2/openapi.json', 'GET, HEAD, OPTIONS'],
  ['/nowhere', 'GET, HEAD'],
  ['/oauth/token', 'POST'],
];

describe('the methods each path serves', () => {
  for (const [path, allow] of SERVED) {
    it(`${path}: ${allow}; every other method 405 with that Allow`, async () => {
      const app = gateway();
      const served = allow.split(', ');
      for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND', 'PURGE']) {
        const headers: Record<string, string> = method === 'OPTIONS' ? { Origin: 'https://a.example', 'Access-Control-Request-Method': 'GET' } : {};
        const res = await app.request(path, { method, headers });
        const text = await res.text();
        if (served.includes(method)) {
          expect(res.status, `${method} ${path}: ${text}`).toBe(method === 'OPTIONS' ? 204 : 200);
        } else {
          expect(res.status, `${method} ${path}: ${text}`).toBe(405);
          expect(res.headers.get('Allow'), `${method} ${path}`).toBe(allow);
          // HEAD carries no body.
          if (method !== 'HEAD')
            expect(JSON.parse(text)).toEqual({ code: 'svc/methodNotAllowed', detail: `${method} is not allowed here; use ${orList(allow)}.` });
        }
      }
    });
  }

  it('cuts a long method name to 20 characters in the message', async () => {
    const res = await gateway().request('/v2/species', { method: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ' });
    expect(res.status).toBe(405);
    expect(JSON.parse(await res.text()).detail).toBe('ABCDEFGHIJKLMNOPQRST is not allowed here; use GET, HEAD or OPTIONS.');
  });
});

describe('over plain HTTP', () => {
  it('a method no route serves is refused before transport: 405, not 426', async () => {
    const res = await gateway().request('http://api.example.com/v2/species', { method: 'PROPFIND' });
    expect(res.status).toBe(405);
    expect(res.headers.get('Allow')).toBe('GET, HEAD, OPTIONS');
  });

  it('a method the path does not serve meets transport first: 426, not 405', async () => {
    const res = await gateway().request('http://api.example.com/v2/species', { method: 'PUT' });
    expect(res.status).toBe(426);
  });
});

describe('the methods as a caller reads them', () => {
  it.each([
    ['POST', 'POST'],
    ['GET, HEAD', 'GET or HEAD'],
    ['GET, HEAD, OPTIONS', 'GET, HEAD or OPTIONS'],
  ])('%s: %s', (allow, read) => {
    expect(orList(allow)).toBe(read);
  });
});

describe('a bare path, before any policy (Node answers CONNECT with it)', () => {
  it.each(SERVED)('%s: %s', (path, allow) => {
    expect(allowedAt(versions, path)).toBe(allow);
  });
});

// The first request of the file builds the dataset's index and the description's validator: not on a test's clock.
// A hook that cannot fail: one that failed under a fault would skip the tests that catch it.
beforeAll(async () => void (await testApp().app.request('https://localhost/v2/species', { headers: { Authorization: DEMO.key } })));

methodsSuite(() => testApp(), ['PROPFIND', 'PURGE', 'LINK']);

describe('what a 405 tells the caller', () => {
  it.each([
    ['PROPFIND', '/v2/species', 'PROPFIND is not allowed here; use GET, HEAD or OPTIONS.', 'GET, HEAD, OPTIONS'],
    ['PUT', '/v1/species/ABBA', 'PUT is not allowed here; use GET or HEAD.', 'GET, HEAD'],
    ['GET', '/oauth/token', 'GET is not allowed here; use POST.', 'POST'],
    // A method name is cut to 20 characters in the message.
    ['ABCDEFGHIJKLMNOPQRSTUVWXYZ', '/healthz', 'ABCDEFGHIJKLMNOPQRST is not allowed here; use GET or HEAD.', 'GET, HEAD'],
  ])('%s %s: "%s"', async (method, path, detail, allow) => {
    const res = await testApp().get(path, { Authorization: DEMO.key }, { method });
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(405);
    expect(body.detail ?? body.message).toBe(detail);
    expect(res.headers.get('allow')).toBe(allow);
  });
});
