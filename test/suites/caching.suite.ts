/**
 * Who may keep an answer (docs/reference/requests.md, RFC 9111), played through a cache library that
 * implements RFC 9111 (http-cache-semantics: the cache logic of got and of npm's fetch), acting as
 * a shared cache (a CDN, a corporate proxy) and as a private one (a browser, an HTTP client):
 * - no answer to a request with a credential may satisfy, without asking the gateway, a request
 *   without it or with another credential, in any credential place of any version;
 * - the private cache revalidates a kept answer to 304, which carries what the 200 said;
 * - every class of answer carries the `Cache-Control` and `Vary` of the table.
 * Runtime-neutral: run in process on Node, over a fronted backend, and inside workerd.
 */
import CachePolicy from 'http-cache-semantics';
import { describe, expect, it } from 'vitest';
import { DEMO, type SuiteClient } from './client';
import { FORM_TYPE, mintDemoToken, postToken } from './tokens';

const PRIVATE = 'private, no-cache';
const PUBLIC = 'public, max-age=300';
const V1_VARY = 'Authorization, X-Api-Key, X-Key';

/** A credential as a request carries it: headers, or a query parameter. */
interface Credential {
  name: string;
  headers?: Record<string, string>;
  query?: string;
}

const header = (name: string, headers: Record<string, string>): Credential => ({ name, headers });
const query = (name: string, q: string): Credential => ({ name, query: q });

/** Every place each version accepts, each with two different valid credentials. */
function placesOf(base: string, oauthToken: string): Array<[Credential, Credential]> {
  if (base === '/v3')
    return [[header('Bearer (OAuth)', { Authorization: `Bearer ${oauthToken}` }), header('Bearer (other)', { Authorization: `Bearer ${oauthToken}x` })]];
  const both: Array<[Credential, Credential]> = [
    [header('ApiKey', { Authorization: DEMO.key }), header('ApiKey (other)', { Authorization: DEMO.speciesOnlyKey })],
    [header('Bearer', { Authorization: DEMO.personalToken }), header('ApiKey (other)', { Authorization: DEMO.speciesOnlyKey })],
  ];
  if (base === '/v2') return both;
  return [
    ...both,
    [header('X-Api-Key', { 'X-Api-Key': 'demo-project-key' }), header('X-Api-Key (other)', { 'X-Api-Key': 'demo-species-only-key' })],
    [header('X-Key', { 'X-Key': 'demo-project-key' }), header('X-Key (other)', { 'X-Key': 'demo-species-only-key' })],
    [query('?key=', 'key=demo-project-key'), query('?key= (other)', 'key=demo-species-only-key')],
    [query('?token=', 'token=demo-personal-token'), header('X-Key (other)', { 'X-Key': 'demo-species-only-key' })],
  ];
}

function withCredential(path: string, credential: Credential | undefined): { path: string; headers: Record<string, string> } {
  if (!credential?.query) return { path, headers: { ...credential?.headers } };
  return { path: `${path}${path.includes('?') ? '&' : '?'}${credential.query}`, headers: {} };
}

/** The request as a cache sees it (lower-case header names, as Node gives them). */
function cacheRequest(path: string, headers: Record<string, string>, method = 'GET'): CachePolicy.Request {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return { url: path, method, headers: { host: 'localhost', ...lower } };
}

function cacheResponse(res: Response): CachePolicy.Response {
  return { status: res.status, headers: Object.fromEntries(res.headers) };
}

/** Whether a cache that kept `res` (for `req`) would serve it to `other` without asking the gateway. */
function serves(shared: boolean, req: CachePolicy.Request, res: Response, other: CachePolicy.Request): boolean {
  const policy = new CachePolicy(req, cacheResponse(res), { shared });
  return policy.storable() && policy.satisfiesWithoutRevalidation(other);
}

const describeRes = (res: Response) => `${res.status} Cache-Control=${res.headers.get('cache-control')} Vary=${res.headers.get('vary')}`;

export function cachingSuite(client: () => SuiteClient): void {
  const send = (path: string, headers: Record<string, string>, init?: RequestInit) => client().get(path, headers, init);

  describe('caches: answers to authenticated callers are kept by nobody but that caller', () => {
    for (const base of ['/v2', '/v1', '/api/v1', '/v3']) {
      for (const resource of ['/species/ABBA', '/species?q=abies', '/genus/Abies']) {
        it(`${base}${resource}: in every credential place, no cache serves it to another caller`, async () => {
          const token = base === '/v3' ? await mintDemoToken(client()) : '';
          const vary = base.endsWith('v1') ? V1_VARY : 'Authorization';
          for (const [credential, other] of placesOf(base, token)) {
            const asked = withCredential(`${base}${resource}`, credential);
            const res = await send(asked.path, asked.headers);
            const what = `${credential.name}: ${describeRes(res)}`;
            expect(res.status, what).toBe(200);
            const req = cacheRequest(asked.path, asked.headers);
            // The same URL and the same URL without any credential, or with another one.
            const strangers = [withCredential(`${base}${resource}`, undefined), withCredential(`${base}${resource}`, other), { path: asked.path, headers: {} }];
            if (credential.query) strangers.push({ path: asked.path, headers: other.headers ?? { 'X-Key': 'demo-species-only-key' } });
            for (const stranger of strangers) {
              const otherReq = cacheRequest(stranger.path, stranger.headers);
              const whom = `${what} -> ${JSON.stringify(stranger)}`;
              expect(serves(true, req, res, otherReq), `shared cache, ${whom}`).toBe(false);
              expect(serves(false, req, res, otherReq), `private cache, ${whom}`).toBe(false);
            }
            expect(res.headers.get('cache-control'), what).toBe(PRIVATE);
            expect(res.headers.get('vary'), what).toBe(vary);
            await res.body?.cancel();
          }
        });
      }
    }

    for (const base of ['/v2', '/v1']) {
      it(`${base}: a private cache revalidates a kept detail to 304, which says what the 200 said`, async () => {
        const headers = { Authorization: DEMO.key };
        const path = `${base}/species/ABBA`;
        const first = await send(path, headers);
        expect(first.status).toBe(200);
        const req = cacheRequest(path, headers);
        const policy = new CachePolicy(req, cacheResponse(first), { shared: false });
        expect(policy.storable(), describeRes(first)).toBe(true);
        // `no-cache`: kept, but never served without asking.
        expect(policy.satisfiesWithoutRevalidation(req)).toBe(false);
        const conditional = policy.revalidationHeaders(req) as Record<string, string>;
        expect(conditional['if-none-match'], JSON.stringify(conditional)).toBe(first.headers.get('etag'));
        const second = await send(path, conditional);
        expect(second.status, describeRes(second)).toBe(304);
        for (const name of ['cache-control', 'vary', 'etag', 'last-modified']) {
          expect(second.headers.get(name), name).toBe(first.headers.get(name));
        }
        const { modified } = policy.revalidatedPolicy(req, cacheResponse(second));
        expect(modified).toBe(false);
      });
    }
  });

  describe('caches: what is kept by nobody, and what is public', () => {
    const NO_STORE_ROWS: Array<{ name: string; path: string; headers: Record<string, string>; init?: RequestInit; status: number; vary?: string }> = [
      { name: 'v2 detail of no record', path: '/v2/species/ZZNONE', headers: { Authorization: DEMO.key }, status: 404 },
      { name: 'v1 detail of no record, X-Key', path: '/v1/species/ZZNONE', headers: { 'X-Key': 'demo-project-key' }, status: 404 },
      { name: 'v2 resource the key does not reach', path: '/v2/genus/Abies', headers: { Authorization: DEMO.speciesOnlyKey }, status: 403 },
      { name: 'v1 resource the key does not reach, ?key=', path: '/v1/genus/Abies?key=demo-species-only-key', headers: {}, status: 403 },
      { name: 'v2 without a credential', path: '/v2/species/ABBA', headers: {}, status: 401 },
      { name: 'v2 with a wrong key', path: '/v2/species/ABBA', headers: { Authorization: 'ApiKey wrong' }, status: 401 },
      { name: 'v1 with a wrong X-Api-Key', path: '/v1/species/ABBA', headers: { 'X-Api-Key': 'wrong' }, status: 401 },
      { name: 'v3 with an API key', path: '/v3/species/ABBA', headers: { Authorization: DEMO.key }, status: 401 },
      { name: 'v3 with a token outside the preview', path: '/v3/species/ABBA', headers: { Authorization: DEMO.personalToken }, status: 403 },
      { name: 'v2 bad parameter', path: '/v2/species?page=0', headers: { Authorization: DEMO.key }, status: 400 },
      { name: 'v1 bad parameter', path: '/v1/species?page=abc', headers: { 'X-Api-Key': 'demo-project-key' }, status: 400 },
      { name: 'unknown path', path: '/nowhere', headers: {}, status: 404 },
      { name: 'v2 method not allowed', path: '/v2/species', headers: { Authorization: DEMO.key }, init: { method: 'DELETE' }, status: 405 },
      { name: 'health', path: '/healthz', headers: {}, status: 200 },
      { name: 'readiness', path: '/readyz', headers: {}, status: 200 },
      {
        name: 'CORS preflight',
        path: '/v2/species',
        headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'GET' },
        init: { method: 'OPTIONS' },
        status: 204,
        vary: 'Access-Control-Request-Headers',
      },
    ];
    for (const row of NO_STORE_ROWS) {
      it(`${row.name}: ${row.status}, no-store, ${row.vary ? `Vary: ${row.vary}` : 'no Vary'}`, async () => {
        const res = await send(row.path, row.headers, row.init);
        expect(res.status, describeRes(res)).toBe(row.status);
        expect(res.headers.get('cache-control'), describeRes(res)).toBe('no-store');
        expect(res.headers.get('vary'), describeRes(res)).toBe(row.vary ?? null);
        const req = cacheRequest(row.path, row.headers, row.init?.method);
        expect(new CachePolicy(req, cacheResponse(res), { shared: true }).storable()).toBe(false);
        expect(new CachePolicy(req, cacheResponse(res), { shared: false }).storable()).toBe(false);
        await res.body?.cancel();
      });
    }

    it('the token endpoint: no-store and Pragma: no-cache, on success and on refusal', async () => {
      const good = await postToken(client(), `grant_type=client_credentials&client_id=${DEMO.clientId}&client_secret=${DEMO.clientSecret}`);
      const bad = await postToken(client(), `grant_type=client_credentials&client_id=${DEMO.clientId}&client_secret=wrong`, { 'Content-Type': FORM_TYPE });
      expect(good.status).toBe(200);
      expect(good.headers.get('cache-control')).toBe('no-store');
      expect(good.headers.get('pragma')).toBe('no-cache');
      expect(bad.status).toBe(401);
      expect(bad.headers.get('cache-control')).toBe('no-store');
      for (const res of [good, bad]) await res.body?.cancel();
    });

    for (const path of [
      '/v2/openapi.json',
      '/v1/openapi.json',
      '/api/v1/openapi.json',
      '/v3/openapi.json',
      '/docs',
      '/docs/docs.js',
      '/docs/docs.css',
      '/docs/swagger-ui-bundle.js',
      '/docs/swagger-ui.css',
    ]) {
      it(`${path}: public, max-age=300, the same for everyone`, async () => {
        const res = await send(path, { Origin: 'https://app.example' });
        expect(res.status).toBe(200);
        expect(res.headers.get('cache-control')).toBe(PUBLIC);
        // CORS answers `*` whatever the Origin, so nothing varies on it.
        expect(res.headers.get('vary')).toBeNull();
        expect(serves(true, cacheRequest(path, { Origin: 'https://app.example' }), res, cacheRequest(path, {}))).toBe(true);
        await res.body?.cancel();
      });
    }
  });
}
