/**
 * The v1 facade as a client sees it: same records in the same order as v2, in v1 shape, through
 * `/v1` and `/api/v1`, with v1's credential places, legacy errors and deprecation headers.
 * Runtime-neutral: expectations come through the API itself (v2 is the reference).
 */
import { describe, expect, it } from 'vitest';
import { DEMO, json, type SuiteClient } from './client';

/** The exact deprecation headers the gateway under test is configured to send. */
export interface V1Headers {
  deprecation: string;
  sunset: string;
  link: string;
}

/** The headers under the defaults of docs/reference/operations.md, written out rather than computed by the code under test. */
export const DEFAULT_V1_HEADERS: V1Headers = {
  deprecation: '@1767225600', // 2026-01-01T00:00:00Z
  sunset: 'Sat, 31 Jul 2027 00:00:00 GMT',
  link: '<https://docs.botanical.example/migrating-to-v2>; rel="deprecation", </v2/migration-plan>; rel="https://docs.botanical.example/rels/migration-plan"',
};

const V1_BASES = ['/v1', '/api/v1'] as const;
const KEY = 'demo-project-key';
const LIMITED_KEY = 'demo-species-only-key';
const TOKEN = 'demo-personal-token';
const WRONG = 'wrong-secret-4711';

/**
 * Walks of real results (a few hundred each, `/species` all 32,800): no query, a `q`, single and
 * multi-field orders, on every top-level collection.
 */
const WALKS = [
  '/species',
  '/families',
  '/genus',
  '/families?order[name]=desc',
  '/genus?q=grass',
  '/species?q=oak',
  '/species?q=clover',
  '/species?q=rosa&order[scientific_name]=desc',
  '/species?q=willow&order[common_name]=asc&order[year]=desc',
  '/species?order[common_name]=desc&order[slug]=asc&q=penstemon',
  '/plants?q=lily&order[scientific_name]=asc',
];

const ids = (pages: any[]) => pages.flatMap((p) => p.data.map((r: any) => r.id));

/** Follows `links.next` from `path`; `/species` is 3,280 v1 pages, so the cap is above that. */
async function walk(client: SuiteClient, path: string): Promise<any[]> {
  const pages: any[] = [];
  for (let next: string | undefined = path; next; next = pages.at(-1).links.next) {
    const res = await client.get(next);
    const body = await json(res);
    if (res.status !== 200) throw new Error(`${next} -> ${res.status} ${JSON.stringify(body)}`);
    pages.push(body);
    if (pages.length > 3500) throw new Error(`runaway walk from ${path}: at ${next}`);
  }
  return pages;
}
const show = (res: Response, body: unknown) => `${res.status} ${JSON.stringify(body).slice(0, 400)}`;

type Sent = { headers?: Record<string, string>; query?: string };

/** The six places a v1 client may put its credential, each with valid and invalid secrets. */
const PLACES = [
  { place: 'Authorization: ApiKey', send: (s: string): Sent => ({ headers: { Authorization: `ApiKey ${s}` } }), valid: [KEY] },
  { place: 'Authorization: Bearer', send: (s: string): Sent => ({ headers: { Authorization: `Bearer ${s}` } }), valid: [TOKEN] },
  { place: 'x-api-key header', send: (s: string): Sent => ({ headers: { 'x-api-key': s } }), valid: [KEY, TOKEN] },
  { place: 'x-key header', send: (s: string): Sent => ({ headers: { 'x-key': s } }), valid: [KEY, TOKEN] },
  { place: 'key query parameter', send: (s: string): Sent => ({ query: `key=${s}` }), valid: [KEY, TOKEN] },
  { place: 'token query parameter', send: (s: string): Sent => ({ query: `token=${s}` }), valid: [KEY, TOKEN] },
];

function request(path: string, sent: Sent[]): [string, Record<string, string>] {
  const query = sent.flatMap((s) => (s.query ? [s.query] : []));
  const headers = Object.assign({}, ...sent.map((s) => s.headers ?? {}));
  return [query.length ? `${path}${path.includes('?') ? '&' : '?'}${query.join('&')}` : path, headers];
}

/**
 * `walks: false` leaves out the whole-dataset walks (thousands of requests whose answers are the
 * dataset's, not the run's): for a second run of the suite over the same gateway code with only
 * the rate limiter's mode changed.
 */
export function v1Suite(client: () => SuiteClient, expected: V1Headers, { walks = true } = {}): void {
  const get = (path: string, headers?: Record<string, string>, init?: RequestInit) => client().get(path, headers, init);

  const expectDeprecated = (res: Response, what: string) => {
    expect(res.headers.get('Deprecation'), what).toBe(expected.deprecation);
    expect(res.headers.get('Sunset'), what).toBe(expected.sunset);
    expect(res.headers.get('Link'), what).toBe(expected.link);
  };
  const expectNotDeprecated = (res: Response, what: string) => {
    for (const name of ['Deprecation', 'Sunset', 'Link']) expect(res.headers.get(name), `${what}: ${name}`).toBeNull();
  };

  describe('v1: same records, same order as v2, over whole walks', () => {
    if (walks)
      it.each(WALKS)(
        '%s',
        async (query) => {
          const v2 = await walk(client(), `/v2${query}`);
          const total = v2[0].meta.total;
          expect(total, query).toBeGreaterThan(20);
          for (const base of V1_BASES) {
            const v1 = await walk(client(), `${base}${query}`);
            expect(ids(v1), `${base}${query}`).toEqual(ids(v2));
            expect(v1.length, `${base}${query}: pages`).toBe(Math.ceil(total / 10));
            v1.forEach((page, i) => {
              const where = `${base}${query} page ${i + 1}`;
              expect(page.data.length, where).toBe(i < v1.length - 1 ? 10 : total - 10 * i);
              expect(page.meta, where).toEqual({ total });
              expect(page.links.self, where).toMatch(new RegExp(`^${base}/[a-z]+\\?.*\\bpage=${i + 1}(&|$)`));
              expect(page.links.last, where).toMatch(new RegExp(`\\bpage=${v1.length}(&|$)`));
              const [resource, search = ''] = query.split('?');
              for (const link of Object.values<string>(page.links)) {
                expect(link.startsWith(`${base}${resource}?${search}`), `${where}: ${link} keeps base and query`).toBe(true);
              }
            });
          }
          // A guard, not a target: a whole-dataset walk is thousands of requests (8,200 for
          // /species; through the legacy backend, each also compared), which took over 120 s at a
          // load average of 10 on a 2-core machine.
        },
        300_000,
      );

    it('reads v1 pages v2 does not have: page 17 of 316 is the last v1 page but one, and past v2', async () => {
      const v1 = await get('/v1/species?q=oak&page=31');
      const body = await json(v1);
      expect(v1.status, show(v1, body)).toBe(200);
      expect(body.links.next).toBe('/v1/species?q=oak&page=32');
      expect((await get('/v2/species?q=oak&page=17')).status).toBe(404);
      const past = await get('/v1/species?q=oak&page=33');
      expect(await json(past)).toEqual({ statusCode: 404, message: expect.stringMatching(/past the last page \(32\)/) });
    });

    it('answers an empty result with only a self link, and 404 past it', async () => {
      const res = await get('/v1/species?q=zzzxqj');
      expect(await json(res)).toEqual({ data: [], links: { self: '/v1/species?q=zzzxqj&page=1' }, meta: { total: 0 } });
      expect((await get('/v1/species?q=zzzxqj&page=2')).status).toBe(404);
    });
  });

  describe('v1: each difference, v1 against v2 for the same record', () => {
    it('uppercase-enums: rank, status, duration UPPERCASE on list items and details; traits untouched', async () => {
      const [v1, v2] = await Promise.all([json(await get('/v1/species?q=oak')), json(await get('/v2/species?q=oak'))]);
      const v2Items = v2.data.slice(0, 10);
      v1.data.forEach((r: any, i: number) => {
        const ref = v2Items[i];
        expect(r.rank, r.id).toBe(ref.rank.toUpperCase());
        expect(r.status, r.id).toBe(ref.status.toUpperCase());
        expect(r.duration, r.id).toEqual(ref.duration?.map((d: string) => d.toUpperCase()) ?? null);
        expect([r.flower, r.foliage, r.flower_or_seed, r.growth_rate], r.id).toEqual([ref.flower, ref.foliage, ref.fruit_or_seed, ref.growth_rate]);
      });
      const detail = await json(await get('/v1/species/ABBA'));
      expect([detail.rank, detail.status, detail.duration]).toEqual(['SPECIES', 'ACCEPTED', ['PERENNIAL']]);
    });

    it('records without rank, status or duration (families, genus, plants) are the v2 records', async () => {
      for (const path of ['/families/Rosaceae', '/genus/Abies', '/plants/ABLA']) {
        const [v1, v2] = await Promise.all([json(await get(`/v1${path}`)), json(await get(`/v2${path}`))]);
        expect(v1, path).toEqual(v2.data);
      }
    });

    it('flower-or-seed: the fruit block is flower_or_seed, at the same position', async () => {
      const [v1, v2] = await Promise.all([json(await get('/v1/species/ABBA')), json(await get('/v2/species/ABBA'))]);
      expect(v1.flower_or_seed).toEqual(v2.data.fruit_or_seed);
      expect(v1).not.toHaveProperty('fruit_or_seed');
      expect(Object.keys(v1)).toEqual(Object.keys(v2.data).map((k) => (k === 'fruit_or_seed' ? 'flower_or_seed' : k)));
    });

    it('language-names: common_names keyed by English language name, same names in the same order', async () => {
      const [v1, v2] = await Promise.all([json(await get('/v1/species/ABBA')), json(await get('/v2/species/ABBA'))]);
      expect(v1.common_names.English).toEqual(v2.data.common_names.en);
      expect(v1.common_names.French).toEqual(v2.data.common_names.fr);
      expect(Object.values(v1.common_names)).toEqual(Object.values(v2.data.common_names));
      expect(Object.keys(v1.common_names)).not.toContain('en');
    });

    it('bare-detail: the record itself, no data, no meta', async () => {
      const [v1, v2] = await Promise.all([json(await get('/v1/families/Pinaceae')), json(await get('/v2/families/Pinaceae'))]);
      expect(v1).toEqual(v2.data);
      expect(v2.meta.last_modified).toBeTruthy();
    });

    it('pages-of-ten: v1 pages 2p-1 and 2p are the halves of v2 page p', async () => {
      const v2 = await json(await get('/v2/species?q=willow&page=2'));
      const [a, b] = await Promise.all([json(await get('/v1/species?q=willow&page=3')), json(await get('/v1/species?q=willow&page=4'))]);
      expect([...a.data, ...b.data].map((r: any) => r.id)).toEqual(v2.data.map((r: any) => r.id));
      expect(a.links).toEqual({
        self: '/v1/species?q=willow&page=3',
        first: '/v1/species?q=willow&page=1',
        prev: '/v1/species?q=willow&page=2',
        next: '/v1/species?q=willow&page=4',
        last: `/v1/species?q=willow&page=${Math.ceil(v2.meta.total / 10)}`,
      });
    });

    it('total-only-meta: meta is { total } of the v2 meta', async () => {
      const [v1, v2] = await Promise.all([json(await get('/v1/genus?q=grass')), json(await get('/v2/genus?q=grass'))]);
      expect(v2.meta).toMatchObject({ per_page: 20, current_page: 1 });
      expect(v1.meta).toEqual({ total: v2.meta.total });
    });

    it('no-enumerations: the four v2 enumeration routes are 404 in v1', async () => {
      for (const path of ['/families/Pinaceae/genus', '/genus/Abies/species', '/genus/Abies/plants', '/plants/ABLA/species']) {
        const v2 = await get(`/v2${path}`);
        expect(v2.status, path).toBe(200);
        for (const base of V1_BASES) {
          const v1 = await get(`${base}${path}`);
          const body = await json(v1);
          expect(v1.status, `${base}${path}: ${show(v1, body)}`).toBe(404);
          expect(body).toEqual({ statusCode: 404, message: expect.any(String) });
        }
      }
    });
  });

  describe('v1: no-cors, browsers get no CORS answers', () => {
    const ORIGIN = 'https://field-guide.example';
    it('answers neither a preflight nor a cross-origin GET with Access-Control-* headers; v2 does', async () => {
      const preflight = { Origin: ORIGIN, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'authorization' };
      const v2 = await get('/v2/species', preflight, { method: 'OPTIONS' });
      expect(v2.status).toBe(204);
      expect(v2.headers.get('Access-Control-Allow-Origin')).toBe('*');
      for (const base of V1_BASES) {
        const res = await get(`${base}/species`, preflight, { method: 'OPTIONS' });
        const cross = await get(`${base}/species?q=oak`, { Origin: ORIGIN, Authorization: DEMO.personalToken });
        expect(cross.status, base).toBe(200);
        for (const r of [res, cross]) {
          expect(
            [...r.headers.keys()].filter((k) => k.startsWith('access-control-')),
            base,
          ).toEqual([]);
          expectDeprecated(r, base);
        }
        expect(res.status, base).not.toBe(204);
      }
    });
  });

  describe('v1: legacy-errors, the same errors as v2 in the v1 body', () => {
    const long = 'a'.repeat(201);
    const CASES: [string, string, Record<string, string> | undefined, RequestInit?][] = [
      ['bad page', '/species?page=0', undefined],
      ['unknown order field', '/species?order[colour]=asc', undefined],
      ['q too long', `/species?q=${long}`, undefined],
      ['no credential', '/species', {}],
      ['unknown key', '/species', { Authorization: `ApiKey ${WRONG}` }],
      ['forbidden resource', '/genus', { Authorization: `ApiKey ${LIMITED_KEY}` }],
      ['unknown id', '/species/NO-SUCH-ID', undefined],
      ['unknown path', '/nowhere', undefined],
      ['method', '/species', undefined, { method: 'POST' }],
    ];
    it.each(CASES)('%s', async (_label, path, headers, init) => {
      const v2 = await get(`/v2${path}`, headers, init);
      const problem = await json(v2);
      expect(v2.headers.get('Content-Type')).toBe('application/problem+json');
      expectNotDeprecated(v2, path);
      for (const base of V1_BASES) {
        const v1 = await get(`${base}${path}`, headers, init);
        const body = await json(v1);
        expect(v1.status, `${base}${path}: ${show(v1, body)}`).toBe(v2.status);
        expect(v1.headers.get('Content-Type')).toBe('application/json');
        // The same sentence, naming the path the caller used.
        // (Except where v1 accepts more than v2: a missing credential may sit in any of v1's places;
        // and where v1 serves less: no CORS preflight, so OPTIONS is not among its methods.)
        const allow = v2.headers.get('Allow')?.replace(', OPTIONS', '') ?? null;
        const message =
          _label === 'no credential'
            ? expect.stringMatching(/^Send a credential in the Authorization header, or the x-api-key header/)
            : (problem.detail ?? problem.title).replaceAll('/v2/', `${base}/`).replace('GET, HEAD or OPTIONS', 'GET or HEAD');
        expect(body).toEqual({ statusCode: problem.status, message });
        expect(v1.headers.get('WWW-Authenticate') !== null, 'challenge kept').toBe(v2.headers.get('WWW-Authenticate') !== null);
        expect(v1.headers.get('Allow')).toBe(allow);
        expectDeprecated(v1, `${base}${path}`);
      }
    });
  });

  describe('v1: legacy-credentials, the six places', () => {
    const cases = PLACES.flatMap((p) => [
      ...p.valid.map((secret) => ({ label: `${p.place}, valid ${secret}`, sent: p.send(secret), status: 200 })),
      { label: `${p.place}, invalid`, sent: p.send(WRONG), status: 401 },
    ]);
    it.each(cases)('$label -> $status', async ({ sent, status }) => {
      for (const base of V1_BASES) {
        const res = await get(...request(`${base}/species?q=oak`, [sent]));
        const body = await json(res);
        expect(res.status, `${base}: ${show(res, body)}`).toBe(status);
        if (status === 401) {
          expect(body).toEqual({ statusCode: 401, message: expect.any(String) });
          expect(res.headers.get('WWW-Authenticate')).toMatch(/ApiKey/);
        } else {
          expect(body.data).toHaveLength(10);
        }
        expectDeprecated(res, base);
        expect(JSON.stringify(body)).not.toContain(WRONG);
      }
      // v2 takes the Authorization header only; a legacy place is refused even with a valid secret.
      const v2 = await get(...request('/v2/species?q=oak', [sent]));
      const problem = await json(v2);
      if (!sent.headers?.Authorization) expect(problem.code, show(v2, problem)).toBe('auth/credentialNotAccepted');
      else expect(v2.status, show(v2, problem)).toBe(status);
    });

    it('answers 401 to a request with no credential at all', async () => {
      const res = await get('/v1/species', {});
      expect(res.status).toBe(401);
      expectDeprecated(res, 'no credential');
    });

    // Ordered places: the first one present is the only one looked at.
    const ORDER = [PLACES[0]!, PLACES[2]!, PLACES[3]!, PLACES[4]!, PLACES[5]!];
    const pairs = ORDER.flatMap((hi, i) => ORDER.slice(i + 1).map((lo) => ({ hi, lo, label: `${hi.place} before ${lo.place}` })));
    it.each(pairs)('$label', async ({ hi, lo }) => {
      const outcome = async (first: string, second: string) => {
        const res = await get(...request('/v1/genus?q=grass', [hi.send(first), lo.send(second)]));
        await res.body?.cancel();
        return res.status;
      };
      expect(await outcome(LIMITED_KEY, KEY), 'the species-only key in front is used: 403').toBe(403);
      expect(await outcome(KEY, LIMITED_KEY), 'the full key in front is used: 200').toBe(200);
      expect(await outcome(WRONG, KEY), 'an invalid credential in front is not skipped: 401').toBe(401);
      expect(await outcome(KEY, WRONG), 'an invalid credential behind is ignored: 200').toBe(200);
    });

    it.each(['key', 'token'])('never puts the %s query credential in links, nor in error bodies', async (param) => {
      const secret = param === 'key' ? KEY : TOKEN;
      for (const base of V1_BASES) {
        const res = await get(`${base}/species?${param}=${secret}&q=oak&page=2`, {});
        const body = await json(res);
        expect(res.status, show(res, body)).toBe(200);
        expect(body.links).toEqual({
          self: `${base}/species?q=oak&page=2`,
          first: `${base}/species?q=oak&page=1`,
          prev: `${base}/species?q=oak&page=1`,
          next: `${base}/species?q=oak&page=3`,
          last: `${base}/species?q=oak&page=32`,
        });
        for (const path of [`/species?q=oak&page=0&${param}=${secret}`, `/species/NO-SUCH-ID?${param}=${secret}`, `/nowhere?${param}=${secret}`]) {
          const err = await get(`${base}${path}`, {});
          const text = await err.text();
          expect(err.status, `${path}: ${text}`).toBeGreaterThanOrEqual(400);
          expect(text, path).not.toContain(secret);
        }
      }
    });
  });

  describe('v1: deprecation headers on every response; none on v2', () => {
    const RESPONSES: [string, string, Record<string, string> | undefined, number, RequestInit?][] = [
      ['collection', '/species?q=oak', undefined, 200],
      ['detail', '/species/ABBA', undefined, 200],
      ['HEAD of a collection', '/species?q=oak', undefined, 200, { method: 'HEAD' }],
      ['HEAD of a detail', '/species/ABBA', undefined, 200, { method: 'HEAD' }],
      ['400', '/species?page=abc', undefined, 400],
      ['401', '/species', {}, 401],
      ['404', '/species/NO-SUCH-ID', undefined, 404],
    ];
    it.each(RESPONSES)('%s', async (_label, path, headers, status, init) => {
      for (const base of V1_BASES) {
        const res = await get(`${base}${path}`, headers, init);
        expect(res.status, `${base}${path}`).toBe(status);
        expectDeprecated(res, `${base}${path}`);
        if (init?.method === 'HEAD') expect(await res.text()).toBe('');
      }
      const v2 = await get(`/v2${path}`, headers, init);
      expect(v2.status).toBe(status);
      expectNotDeprecated(v2, `/v2${path}`);
    });

    it('304 (If-None-Match on a detail)', async () => {
      for (const base of [...V1_BASES, '/v2']) {
        const first = await get(`${base}/species/ABBA`);
        const tag = first.headers.get('ETag');
        expect(tag, base).toMatch(/^"/);
        const res = await get(`${base}/species/ABBA`, { Authorization: DEMO.key, 'If-None-Match': tag! });
        expect(res.status, base).toBe(304);
        if (base === '/v2') expectNotDeprecated(res, base);
        else expectDeprecated(res, base);
      }
    });

    it('the v1 ETag is not the v2 one (different bodies)', async () => {
      const [v1, v2] = await Promise.all([get('/v1/species/ABBA'), get('/v2/species/ABBA')]);
      expect(v1.headers.get('ETag')).not.toBe(v2.headers.get('ETag'));
    });
  });

  describe('v1: the /api/v1 alias', () => {
    it('serves the /v1 records and keeps /api/v1 in links', async () => {
      const [alias, v1] = await Promise.all([json(await get('/api/v1/species/ABBA')), json(await get('/v1/species/ABBA'))]);
      expect(alias).toEqual(v1);
      const page = await json(await get('/api/v1/species?q=oak'));
      expect(page.links.next).toBe('/api/v1/species?q=oak&page=2');
    });

    it('has no /api/v2: 404 problem+json without deprecation headers', async () => {
      for (const path of ['/api/v2/species', '/api/v2/species/ABBA']) {
        const res = await get(path);
        expect(res.status, path).toBe(404);
        expect(res.headers.get('Content-Type')).toBe('application/problem+json');
        expectNotDeprecated(res, path);
      }
    });
  });
}
