/**
 * The version walker: which version a path belongs to, and what one request of each kind gets
 * through v1's chain of changes (one page, one detail, one error), compared with v2 for the same
 * request. The whole v1 facade is `v1-facade.test.ts`; these are the few requests that show each
 * hook of the walker at work. Last, a version derived from v1, as an older one would be added:
 * the order in which the walker applies a chain shows only once two changes share a hook.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config';
import { ApiError } from '../../src/core/api-error';
import { v1 } from '../../src/versions/v1';
import type { Version } from '../../src/versions/version';
import { walk } from '../../src/versions/walker';
import { DEFAULT_V1_HEADERS } from '../suites/v1.suite';
import { json, testApp } from '../support/harness';

const t = testApp();

describe('which version a path belongs to', () => {
  it.each(['/v1', '/api/v1'])('%s itself is v1: the v1 404 with the deprecation headers', async (path) => {
    const res = await t.get(path);
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(404);
    expect(res.headers.get('Content-Type')).toBe('application/json');
    expect(body).toEqual({ statusCode: 404, message: `No resource at ${path}.` });
    expect(res.headers.get('Deprecation')).toBe(DEFAULT_V1_HEADERS.deprecation);
  });

  it.each(['/v10/species', '/v1species', '/api/v1x/species', '/api/v1species/ABBA'])('%s only begins like a v1 base: a 404 problem, not v1', async (path) => {
    const res = await t.get(path);
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(404);
    expect(res.headers.get('Content-Type')).toBe('application/problem+json');
    expect(body).toMatchObject({ code: 'svc/notFound', detail: `No resource at ${path}.` });
    expect(res.headers.get('Deprecation')).toBeNull();
  });
});

describe('one request of each kind through the v1 chain, against v2', () => {
  it('a page: v1 page 3 is the first half of v2 page 2, records in v1 shape, meta only the total, links in v1 pages', async () => {
    const [v1, v2] = await Promise.all([json(await t.get('/v1/species?q=oak&page=3')), json(await t.get('/v2/species?q=oak&page=2'))]);
    expect(v1.data.map((r: any) => r.id)).toEqual(v2.data.slice(0, 10).map((r: any) => r.id));
    v1.data.forEach((record: any, i: number) => {
      const ref = v2.data[i];
      expect([record.rank, record.status, record.flower_or_seed], record.id).toEqual([ref.rank.toUpperCase(), ref.status.toUpperCase(), ref.fruit_or_seed]);
      expect(record, record.id).not.toHaveProperty('fruit_or_seed');
    });
    expect(v1.meta).toEqual({ total: v2.meta.total });
    expect(v1.links).toMatchObject({ self: '/v1/species?q=oak&page=3', prev: '/v1/species?q=oak&page=2', next: '/v1/species?q=oak&page=4' });
  });

  it('a detail: the bare record in v1 shape, with its own ETag', async () => {
    const [v1, v2] = await Promise.all([t.get('/v1/species/ABBA'), t.get('/v2/species/ABBA')]);
    const [record, envelope] = [await json(v1), await json(v2)];
    expect(record).not.toHaveProperty('data');
    expect([record.id, record.rank, record.status, record.flower_or_seed]).toEqual(['ABBA', 'SPECIES', 'ACCEPTED', envelope.data.fruit_or_seed]);
    expect(record.common_names.English).toEqual(envelope.data.common_names.en);
    expect(v1.headers.get('ETag')).toMatch(/^"/);
    expect(v1.headers.get('ETag')).not.toBe(v2.headers.get('ETag'));
  });

  it('an error: the v1 body, where v2 answers a problem', async () => {
    const [v1, v2] = await Promise.all([t.get('/v1/species/NO-SUCH-ID'), t.get('/v2/species/NO-SUCH-ID')]);
    const problem = await json(v2);
    expect(v2.headers.get('Content-Type')).toBe('application/problem+json');
    expect(v1.headers.get('Content-Type')).toBe('application/json');
    expect(await json(v1)).toEqual({ statusCode: 404, message: problem.detail });
  });
});

describe('a version derived from v1, as an older one would be added', () => {
  const V1 = v1(parseConfig({}));
  const earlier = Date.parse('2027-01-01T00:00:00Z');
  const v0: Version = {
    name: 'v0',
    bases: ['/v0'],
    parent: V1,
    changes: [
      {
        name: 'pages-by-twos',
        description: 'A v0 page number counts pairs of v1 pages; v0 errors are plain text.',
        listQuery: (query) => ({ ...query, page: query.page * 2 }),
        error: (error) => ({ contentType: 'text/plain', body: error.status }),
        retiredAt: earlier,
      },
    ],
  };

  it('migrates a request from its own change toward the core: v0 page 3 is v1 page 6, core page 3', () => {
    expect(walk.listQuery(v0, { q: 'oak', order: [], page: 3 })).toEqual({ q: 'oak', order: [], page: 3 });
    expect(walk.listQuery(V1, { q: 'oak', order: [], page: 6 }).page).toBe(3);
  });

  it('renders errors in the shape of its own change (the outermost that has one), not in the v1 body', () => {
    expect(walk.error(v0, new ApiError('svc/notFound'))).toEqual({ contentType: 'text/plain', body: 404 });
    expect(walk.error(V1, new ApiError('svc/notFound'))?.contentType).toBe('application/json');
  });

  it('retires at the earliest retirement of its chain', () => {
    expect(walk.retiredAt(V1)).toBe(Date.parse('2027-07-31T00:00:00Z'));
    expect(walk.retiredAt(v0)).toBe(earlier);
  });
});
