/**
 * The descriptions and the docs page as a client sees them (docs/reference/descriptions.md), on every
 * runtime. Every response here is also checked against the description by the client itself.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config';
import { describeVersions } from '../../src/openapi/document';
import { METHODS, type OpenApiDocument } from '../../src/openapi/types';
import { buildVersions } from '../../src/versions';
import { DEMO, json, type SuiteClient } from './client';

const ORIGIN = 'https://field-guide.example';
const BASES = ['/v2', '/v1', '/api/v1', '/v3'];

/** What an app with the default settings describes (the suites' gateways run with them). */
const expected = (() => {
  const config = parseConfig({});
  return describeVersions(config, buildVersions(config));
})();

const operations = (doc: OpenApiDocument) =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({ path, method, op: item[method]!, own: item.servers !== undefined })),
  );

export function openapiSuite(client: () => SuiteClient): void {
  describe('GET {base}/openapi.json', () => {
    for (const base of BASES) {
      it(`${base}: the version's description, without a credential, cacheable, with its base as server`, async () => {
        const res = await client().get(`${base}/openapi.json`, {});
        const body = await json<OpenApiDocument>(res);
        expect(res.status, JSON.stringify(body).slice(0, 300)).toBe(200);
        expect(res.headers.get('Content-Type')).toMatch(/^application\/json/);
        expect(res.headers.get('Cache-Control')).toBe('public, max-age=300');
        expect(res.headers.get('ETag')).toMatch(/^"[0-9a-f]{32}"$/);
        expect(res.headers.get('RateLimit')).toBeNull();
        expect(body).toEqual(expected.get(base));
        expect(body.openapi).toBe('3.1.1');
        expect(body.servers).toEqual([{ url: base }]);
      });
    }

    it('is served even with a credential the version refuses, and never counted', async () => {
      const res = await client().get('/v3/openapi.json', { Authorization: DEMO.key });
      expect(res.status).toBe(200);
      expect(res.headers.get('RateLimit')).toBeNull();
    });

    it('answers 304 to a matching If-None-Match, and 200 when the tag differs', async () => {
      const first = await client().get('/v2/openapi.json', {});
      const tag = first.headers.get('ETag')!;
      const again = await client().get('/v2/openapi.json', { 'If-None-Match': tag });
      expect(again.status).toBe(304);
      expect(again.headers.get('ETag')).toBe(tag);
      expect(await again.text()).toBe('');
      expect((await client().get('/v2/openapi.json', { 'If-None-Match': '"other"' })).status).toBe(200);
      // Each version's document has its own tag.
      expect((await client().get('/v1/openapi.json', {})).headers.get('ETag')).not.toBe(tag);
    });

    it('answers browsers on every version, v1 included', async () => {
      for (const base of BASES) {
        const res = await client().get(`${base}/openapi.json`, { Origin: ORIGIN });
        expect(res.headers.get('Access-Control-Allow-Origin'), base).toBe('*');
        const preflight = await client().get(`${base}/openapi.json`, { Origin: ORIGIN, 'Access-Control-Request-Method': 'GET' }, { method: 'OPTIONS' });
        expect(preflight.status, base).toBe(204);
      }
    });

    it('answers HEAD like GET, and 405 with Allow to other methods', async () => {
      const head = await client().get('/v2/openapi.json', {}, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('ETag')).toBeTruthy();
      const post = await client().get('/v2/openapi.json', {}, { method: 'POST' });
      expect(post.status).toBe(405);
      expect(post.headers.get('Allow')).toBe('GET, HEAD, OPTIONS');
    });

    it('v1: every operation of the version is deprecated, and the document carries the deprecation headers', async () => {
      const res = await client().get('/v1/openapi.json', {});
      const doc = await json<OpenApiDocument>(res);
      expect(res.headers.get('Deprecation')).toMatch(/^@\d+$/);
      expect(res.headers.get('Sunset')).toBeTruthy();
      const ops = operations(doc);
      expect(ops.filter((o) => !o.own).every((o) => o.op.deprecated === true)).toBe(true);
      expect(ops.filter((o) => o.own).every((o) => o.op.deprecated === undefined)).toBe(true);
      expect(Object.keys(doc.paths)).not.toContain('/genus/{id}/species');
      expect(Object.keys(doc.components.securitySchemes).sort()).toEqual([
        'ApiKey',
        'Bearer',
        'ClientBasic',
        'KeyQuery',
        'OAuth2',
        'TokenQuery',
        'XApiKey',
        'XKey',
      ]);
    });

    it('v3: Bearer credentials only', async () => {
      const doc = await json<OpenApiDocument>(await client().get('/v3/openapi.json', {}));
      expect(doc.security).toEqual([{ Bearer: [] }, { OAuth2: [] }]);
      expect(doc.components.securitySchemes.ApiKey).toBeUndefined();
      expect(doc.components.securitySchemes.OAuth2).toMatchObject({ flows: { clientCredentials: { tokenUrl: '/oauth/token' } } });
    });
  });

  describe('GET /docs', () => {
    it('serves the reference page and its UI from the gateway, with a version switcher', async () => {
      const res = await client().get('/docs', {});
      const html = await res.text();
      expect(res.status, html.slice(0, 200)).toBe(200);
      expect(res.headers.get('Content-Type')).toMatch(/^text\/html/);
      expect(res.headers.get('Content-Security-Policy')).toContain("script-src 'self'");
      // v2 first; v1 deprecated with its sunset; v3 preview.
      expect([...html.matchAll(/<option value="([^"]+)"[^>]*>([^<]+)</g)].map((m) => [m[1], m[2]])).toEqual([
        ['/v2/openapi.json', 'v2 (current)'],
        ['/v3/openapi.json', 'v3 (preview)'],
        ['/v1/openapi.json', 'v1 (deprecated, sunset 2027-07-31)'],
      ]);
      const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
      expect(
        sources.every((src) => src.startsWith('/') || src.startsWith('data:')),
        sources.join(' '),
      ).toBe(true);
      for (const src of sources.filter((s) => s.startsWith('/'))) {
        const asset = await client().get(src, {});
        expect(asset.status, src).toBe(200);
        expect((await asset.text()).length, src).toBeGreaterThan(100);
      }
      const bundle = await (await client().get('/docs/swagger-ui-bundle.js', {})).text();
      expect(bundle).toContain('SwaggerUIBundle');
    });
  });
}
