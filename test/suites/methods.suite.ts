import { describe, expect, it } from 'vitest';
import { DEMO, json, type SuiteClient } from './client';

/**
 * Methods and HEAD through the app, on every runtime (docs/reference/requests.md): a method no route
 * serves is 405 with `Allow` on any path, `/healthz` and `/readyz` included, and HEAD carries
 * the headers GET would, `Content-Length` included. `unserved` are the methods the runtime's
 * Request can carry (Node's refuses TRACE and CONNECT; its HTTP layer is tested on a socket).
 */
export function methodsSuite(client: () => SuiteClient, unserved: readonly string[]): void {
  describe('methods no route serves', () => {
    const cases: [string, string][] = [
      ['/healthz', 'GET, HEAD'],
      ['/readyz', 'GET, HEAD'],
      // OPTIONS where the version answers CORS preflights (v2, v3, every description), not on v1.
      ['/v2/species', 'GET, HEAD, OPTIONS'],
      ['/v2/species/ABBA', 'GET, HEAD, OPTIONS'],
      ['/v3/species', 'GET, HEAD, OPTIONS'],
      ['/v1/species', 'GET, HEAD'],
      ['/v1/openapi.json', 'GET, HEAD, OPTIONS'],
      ['/nowhere', 'GET, HEAD'],
      ['/oauth/token', 'POST'],
    ];
    for (const method of unserved) {
      it.each(cases)(`${method} %s: 405 with Allow: %s`, async (path, allow) => {
        const res = await client().get(path, { Authorization: DEMO.key }, { method });
        const text = await res.text();
        expect(res.status, text).toBe(405);
        expect(res.headers.get('allow')).toBe(allow);
        expect(res.headers.get('svc-request-id')).toBeTruthy();
      });
    }

    it.each([
      ['PUT', '/v2/species/ABBA'],
      ['DELETE', '/v3/species'],
      ['POST', '/v1/species'],
      ['OPTIONS', '/v1/species/ABBA'],
      ['GET', '/oauth/token'],
    ])('%s %s without a credential: 405, not 401 (a caller learns what a path serves without one)', async (method, path) => {
      const res = await client().get(path, {}, { method });
      expect(res.status, await res.text()).toBe(405);
      expect(res.headers.get('www-authenticate')).toBeNull();
    });

    it.each(['POST', 'PUT', 'DELETE'])('%s /healthz and /readyz: 405 with Allow: GET, HEAD, not 404', async (method) => {
      for (const path of ['/healthz', '/readyz']) {
        const res = await client().get(path, {}, { method });
        const body = await json(res);
        expect(res.status, JSON.stringify(body)).toBe(405);
        expect(res.headers.get('allow')).toBe('GET, HEAD');
        expect(body.code).toBe('svc/methodNotAllowed');
      }
    });
  });

  describe('HEAD answers with the headers GET would, Content-Length included', () => {
    it.each(['/v2/species/ABBA', '/v2/species?q=abies', '/v1/species/ABBA', '/healthz', '/v2/openapi.json', '/v2/species/NOPE', '/nowhere'])(
      '%s',
      async (path) => {
        const get = await client().get(path);
        const bytes = (await get.arrayBuffer()).byteLength;
        const head = await client().get(path, { Authorization: DEMO.key }, { method: 'HEAD' });
        expect(head.status).toBe(get.status);
        expect(head.headers.get('content-length')).toBe(String(bytes));
        expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
        expect(head.headers.get('etag')).toBe(get.headers.get('etag'));
        expect((await head.arrayBuffer()).byteLength).toBe(0);
      },
    );
  });
}
