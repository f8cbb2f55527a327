/**
 * A client's usage counted in pieces (two isolates, reports after each response) and summed by
 * `mergeUsage` is the usage counted in one go; the Node store is bounded by bytes.
 */
import { describe, expect, it } from 'vitest';
import { MemoryUsageStore, usageBytes } from '../../../../src/migration/plan/usage-store';
import { type AccessFacts, countRequest, emptyUsage, mergeUsage } from '../../../../src/migration/plan/usage';

const v1 = (path: string, status = 200, time = '2026-11-20T09:00:00Z', credential = 'v1:x-api-key'): AccessFacts => {
  const route = `GET ${path
    .split('?')[0]!
    .replace(/^\/(api\/)?v1/, '')
    .replace(/^(\/[a-z]+)\/[^/]+/, '$1/{id}')}`;
  return { time, version: 'v1', subject: 'project:p', credential, path, route, status, brownout: false };
};
const REQUESTS: AccessFacts[] = [
  v1('/v1/species?page=1'),
  v1('/v1/species?page=2'),
  v1('/api/v1/species?page=3&key=[redacted]', 200, '2026-11-21T09:00:00Z', 'v1:query'),
  v1('/v1/species/ABBA', 404),
  v1('/v1/genus?page=7'),
  v1('/v1/genus?page=8', 200, '2026-11-22T09:00:00Z'),
  {
    time: '2026-11-22T10:00:00Z',
    version: 'v2',
    subject: 'project:p',
    credential: 'apiKey',
    path: '/v2/species',
    route: 'GET /species',
    status: 200,
    brownout: false,
  },
  v1('/v1/species?page=4', 400),
  v1('/v1/genus?page=2'),
];
const counted = (facts: readonly AccessFacts[]) => {
  const u = emptyUsage('project:p');
  for (const f of facts) countRequest(u, f);
  return u;
};

describe('countRequest', () => {
  it.each([
    ['/v1/species?page=4', 4],
    ['/v1/species?page=10', 10],
    ['/v1/species?q=oak&page=6&key=[redacted]', 6],
    ['/v1/species?page=abc&page=5', 5],
    ['/v1/species?npage=3&page=2', 2],
    ['/v1/species?xpage=3', 1],
    ['/v1/species?page=', 1],
    ['/v1/species?page=12x', 1],
    ['/v1/species?page=0', 1],
    ['/v1/species?page=123456789', 123456789],
    ['/v1/species?page=1234567890', 1],
    ['/v1/species', 1],
  ])('counts %s as a step to page %i', (path, page) => {
    expect(Object.keys(counted([v1(path)]).walks['GET /species']!.pages)).toEqual([String(page)]);
  });

  it('counts each day once, in order, however its requests are spread', () => {
    const times = ['2026-11-20T09:00:00Z', '2026-11-20T23:59:59.999Z', '2026-11-22T00:00:00Z', '2026-11-20T12:00:00Z', '2026-11-21T08:00:00+02:00'];
    expect(counted(times.map((t) => v1('/v1/species', 200, t))).v1_days).toEqual(['2026-11-20', '2026-11-21', '2026-11-22']);
  });
});

describe('mergeUsage', () => {
  it('sums counts made apart into the counts made in one go, wherever the requests were split', () => {
    const whole = counted(REQUESTS);
    for (let at = 0; at <= REQUESTS.length; at++) {
      expect(mergeUsage(counted(REQUESTS.slice(0, at)), counted(REQUESTS.slice(at))), `split at ${at}`).toEqual(whole);
    }
  });

  it('and request by request, as an isolate that reports after every response sends them', () => {
    const merged = emptyUsage('project:p');
    for (const f of REQUESTS) mergeUsage(merged, counted([f]));
    expect(merged).toEqual(counted(REQUESTS));
    // The walk of /species by links from page 1 stays a walk: no page was computed.
    expect(merged.walks['GET /species']).toMatchObject({ steps: 4, jumps: 0 });
  });
});

describe('MemoryUsageStore', () => {
  it('forgets the least recently seen client past its bytes, weighing a usage again when it grows', () => {
    const one = counted(REQUESTS);
    const store = new MemoryUsageStore('2026-11-20T00:00:00Z', 10 * (usageBytes(one) + 400));
    for (let i = 0; i < 30; i++) for (const f of REQUESTS) store.record({ ...f, subject: `project:${i}` });
    const kept = Array.from({ length: 30 }, (_, i) => store.usage(`project:${i}`) !== undefined);
    expect(kept.filter(Boolean).length).toBeGreaterThan(3);
    expect(kept.filter(Boolean).length).toBeLessThan(11);
    expect(kept.slice(-3)).toEqual([true, true, true]);
    expect(store.usage('project:29')).toEqual({ usage: { ...one, subject: 'project:29' }, since: '2026-11-20T00:00:00Z' });
  });

  it('does not count reading the plan', () => {
    const store = new MemoryUsageStore('2026-11-20T00:00:00Z');
    store.record({ ...REQUESTS[6]!, path: '/v2/migration-plan', route: 'GET /migration-plan' });
    expect(store.usage('project:p')).toBeUndefined();
  });
});
