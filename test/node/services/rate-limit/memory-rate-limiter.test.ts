import { beforeAll, describe, expect, it } from 'vitest';
import { entryBytes } from '../../../../src/services/cache/entry-size';
import { ManualClock } from '../../../../src/services/clock';
import { noMetrics } from '../../../../src/services/metrics';
import { MemoryRateLimiter } from '../../../../src/services/rate-limit/memory-rate-limiter';
import { rateLimitSuite } from '../../../suites/rate-limit.suite';
import { mintDemoToken } from '../../../suites/tokens';
import { DEMO, json, testApp } from '../../../support/harness';

rateLimitSuite(() => testApp());

const state = (res: Response) => `${res.status} ${res.headers.get('RateLimit')}`;

describe('rate limits per project and per token subject (RATE_LIMIT_PER_MINUTE=3)', () => {
  it('counts down per project, refuses the 4th request with 429, and recovers in the next window', async () => {
    const t = testApp({ env: { RATE_LIMIT_PER_MINUTE: '3' }, now: '2026-11-21T12:00:15Z' });
    const demo = { Authorization: DEMO.key };
    const limited = { Authorization: DEMO.speciesOnlyKey };

    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await t.get('/v2/species', demo);
      expect(res.headers.get('RateLimit-Policy')).toBe('"default";q=3;w=60');
      seen.push(state(res));
      t.clock.advance(5_000);
    }
    expect(seen).toEqual(['200 "default";r=2;t=45', '200 "default";r=1;t=40', '200 "default";r=0;t=35']);

    const refused = await t.get('/v2/species', demo);
    const problem = await json(refused);
    expect(refused.status, JSON.stringify(problem)).toBe(429);
    expect(refused.headers.get('Content-Type')).toBe('application/problem+json');
    expect(problem).toMatchObject({ status: 429, code: 'svc/rateLimited' });
    expect(problem.data).toBeUndefined();
    expect(refused.headers.get('Retry-After')).toBe('30');
    expect(refused.headers.get('RateLimit')).toBe('"default";r=0;t=30');
    expect(refused.headers.get('Svc-Request-Id')).toBeTruthy();

    // demo-limited is another project: its own bucket, untouched by demo's.
    const other = await t.get('/v2/species', limited);
    expect(state(other)).toBe('200 "default";r=2;t=30');

    // Still refused for the rest of the window, with Retry-After counting down to its end.
    t.clock.advance(20_000);
    const still = await t.get('/v2/species', demo);
    expect(state(still)).toBe('429 "default";r=0;t=10');
    expect(still.headers.get('Retry-After')).toBe('10');

    // A refused request does not extend the window: the next minute starts fresh.
    t.clock.set('2026-11-21T12:01:00Z');
    const recovered = await t.get('/v2/species', demo);
    expect(state(recovered)).toBe('200 "default";r=2;t=60');
  });

  it('gives each token subject its own bucket, apart from the projects', async () => {
    const t = testApp({ env: { RATE_LIMIT_PER_MINUTE: '2' } });
    const token = { Authorization: `Bearer ${await mintDemoToken(t)}` };
    const personal = { Authorization: DEMO.personalToken };
    for (let i = 0; i < 2; i++) expect((await t.get('/v2/species', { Authorization: DEMO.key })).status).toBe(200);
    expect((await t.get('/v2/species', { Authorization: DEMO.key })).status).toBe(429);
    expect(state(await t.get('/v2/species', token))).toBe('200 "default";r=1;t=60');
    expect(state(await t.get('/v3/species', token))).toBe('200 "default";r=0;t=60');
    expect((await t.get('/v2/species', token)).status).toBe(429);
    expect(state(await t.get('/v2/species', personal))).toBe('200 "default";r=1;t=60');
  });

  it('counts every authenticated response, and puts the headers on its errors and 304s', async () => {
    const t = testApp({ env: { RATE_LIMIT_PER_MINUTE: '5' } });
    const limited = { Authorization: DEMO.speciesOnlyKey };
    const detail = await t.get('/v2/species/ABBA', limited);
    const tag = detail.headers.get('ETag')!;
    expect(state(detail)).toBe('200 "default";r=4;t=60');
    expect(state(await t.get('/v2/species/ABBA', { ...limited, 'If-None-Match': tag }))).toBe('304 "default";r=3;t=60');
    expect(state(await t.get('/v2/genus', limited))).toBe('403 "default";r=2;t=60');
    expect(state(await t.get('/v2/species/NO-SUCH-ID', limited))).toBe('404 "default";r=1;t=60');
    expect(state(await t.get('/v2/species', {}))).toBe('401 null');
  });
});

describe('a refusal for the rate limit, as the caller and the operator see it', () => {
  // The first request of a file builds the dataset's index and the description's validator: not on a test's clock.
  // A hook that cannot fail: one that failed under a fault would skip the tests that catch it.
  beforeAll(async () => void (await testApp().app.request('https://localhost/v2/species', { headers: { Authorization: DEMO.key } })));
  it('names the project, the limit and when to come back, and is counted as a rate-limit refusal', async () => {
    const refusals: string[] = [];
    const t = testApp({
      env: { RATE_LIMIT_PER_MINUTE: '1' },
      now: '2026-11-21T12:00:15Z',
      services: { metrics: { ...noMetrics, refused: (kind) => refusals.push(kind) } },
    });
    expect((await t.get('/v2/species', { Authorization: DEMO.key })).status).toBe(200);
    expect(refusals, 'an allowed request is no refusal').toEqual([]);
    const refused = await t.get('/v2/species', { Authorization: DEMO.key });
    const problem = await json(refused);
    expect(refused.status, JSON.stringify(problem)).toBe(429);
    expect(problem.detail).toBe('More than 1 requests this minute for project demo; retry in 45 s.');
    expect(refusals).toEqual(['rate_limit']);
  });
});

describe('rate limits on a Node instance without Redis (the in-memory limiter)', () => {
  it('limit every minute, not only the first: full, refused, fresh, full again, for five minutes on', async () => {
    const t = testApp({ env: { RATE_LIMIT_PER_MINUTE: '2' }, now: '2026-11-21T12:00:05Z' });
    const seen: string[] = [];
    for (let minute = 0; minute < 5; minute++) {
      t.clock.set(Date.parse('2026-11-21T12:00:05Z') + minute * 65_000);
      for (let i = 0; i < 3; i++) seen.push(state(await t.get('/v2/species', { Authorization: DEMO.key })));
      t.clock.advance(30_000);
      seen.push(state(await t.get('/v2/species', { Authorization: DEMO.key })));
    }
    const t0 = (m: number) => 55 - 5 * m;
    expect(seen).toEqual(
      Array.from({ length: 5 }, (_, m) => [
        `200 "default";r=1;t=${t0(m)}`,
        `200 "default";r=0;t=${t0(m)}`,
        `429 "default";r=0;t=${t0(m)}`,
        `429 "default";r=0;t=${t0(m) - 30}`,
      ]).flat(),
    );
  });
});

describe('MemoryRateLimiter', () => {
  it('keeps windows aligned to the clock minute', async () => {
    const clock = new ManualClock(Date.parse('2026-11-21T12:00:59.500Z'));
    const limiter = new MemoryRateLimiter(clock);
    expect(await limiter.hit('a', 2, 60)).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 1 });
    clock.advance(500);
    expect(await limiter.hit('a', 2, 60)).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 60 });
  });

  it('holds a bounded number of bytes of buckets however many appear, keeping the busy ones', async () => {
    const clock = new ManualClock(Date.parse('2026-11-21T12:00:00Z'));
    // Room for exactly 100 buckets of names as long as `project:1234`.
    const cap = 100 * entryBytes('project:1234', 32);
    const limiter = new MemoryRateLimiter(clock, cap);
    await limiter.hit('busy', 1000, 60);
    for (let i = 0; i < 5000; i++) {
      await limiter.hit(`project:${i}`, 10, 60);
      if (i % 50 === 0) await limiter.hit('busy', 1000, 60);
    }
    expect(limiter.size).toBe(100);
    expect(limiter.bytes).toBeLessThanOrEqual(cap);
    // 1 + 100 hits so far: the busy bucket was never evicted, so its count kept going.
    expect((await limiter.hit('busy', 1000, 60)).remaining).toBe(1000 - 102);
  });
});

describe('RateLimit-Policy states the limit the counting limiter applied', () => {
  /** A shared limiter answering under a limit set elsewhere (another instance's RATE_LIMIT_PER_MINUTE). */
  const answeringWith = (limit: number) => ({
    hit: () => ({ allowed: true, limit, remaining: limit - 1, resetSeconds: 30 }),
    peek: () => ({ allowed: true, limit, remaining: limit, resetSeconds: 30 }),
  });

  it.each([
    [3, '"default";q=3;w=60'],
    [7, '"default";q=7;w=60'],
  ])('the limiter counting under %i: that quota', async (limit, policy) => {
    const t = testApp({ env: { RATE_LIMIT_PER_MINUTE: '3' }, services: { rateLimiter: answeringWith(limit) } });
    const res = await t.get('/v2/species', { Authorization: DEMO.key });
    expect(res.status).toBe(200);
    expect(res.headers.get('RateLimit-Policy')).toBe(policy);
    expect(res.headers.get('RateLimit')).toBe(`"default";r=${limit - 1};t=30`);
  });
});
