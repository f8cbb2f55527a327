/** The upstream response cache: freshness from Cache-Control, stale-on-error within a bound, coalescing. */
import { describe, expect, it } from 'vitest';
import { freshnessMs } from '../../src/services/upstream/freshness';
import { MemoryResponseCache } from '../../src/services/upstream/memory-cache';
import { ManualClock } from '../../src/services/clock';
import { DEMO, json } from '../support/harness';
import { fakePage, fakesClosedAfterEach, pageOf, sendJson, sleep, upstreamGateway, type Handler } from '../support/upstream';

const fake = fakesClosedAfterEach();

/** Pages whose records say which upstream answer they came from. */
const numbered =
  (headers: Record<string, string> = {}): Handler =>
  (req, res, n) => {
    const page = fakePage(pageOf(req)) as { data: Array<Record<string, unknown>> };
    page.data.forEach((r) => {
      r.common_name = `answer ${n}`;
    });
    sendJson(res, page, 200, headers);
  };
const answerOf = async (res: Response) => (await json(res)).data[0].common_name;
const down: Handler = (_q, res) => sendJson(res, {}, 500);

describe('response cache', () => {
  it('serves fresh entries for the TTL, then asks the upstream again', async () => {
    const upstream = await fake(numbered());
    const gateway = upstreamGateway(upstream.url, { tuning: { cacheTtlMs: 1_000 } });
    expect(await answerOf(await gateway.get('/v2/species'))).toBe('answer 1');
    gateway.clock.advance(999);
    expect(await answerOf(await gateway.get('/v2/species'))).toBe('answer 1');
    gateway.clock.advance(1);
    expect(await answerOf(await gateway.get('/v2/species'))).toBe('answer 2');
    expect(upstream.seen).toHaveLength(2);
  });

  it('is shared by every caller, while access control stays in the gateway', async () => {
    const upstream = await fake((_req, res) => sendJson(res, { data: { id: 'Abies' }, meta: { last_modified: '2026-03-18T00:00:00Z' } }));
    const gateway = upstreamGateway(upstream.url, { tuning: { cacheTtlMs: 60_000 } });
    expect((await gateway.get('/v2/genus/Abies', { Authorization: DEMO.key })).status).toBe(200);
    expect((await gateway.get('/v2/genus/Abies', { Authorization: DEMO.personalToken })).status).toBe(200);
    expect((await gateway.get('/v2/genus/Abies', { Authorization: DEMO.speciesOnlyKey })).status, 'cached, still forbidden').toBe(403);
    expect((await gateway.get('/v2/genus/Abies', {})).status, 'cached, still unauthenticated').toBe(401);
    expect(upstream.seen).toHaveLength(1);
  });

  it('keys by the normalised query: parameter order, unknown parameters and page=1 do not matter; order[] does', async () => {
    const upstream = await fake(numbered());
    const gateway = upstreamGateway(upstream.url, { tuning: { cacheTtlMs: 60_000 } });
    for (const path of ['/v2/species?q=fir&order[year]=desc', '/v2/species?order[year]=desc&q=fir&page=1', '/v2/species?utm=x&q=fir&order%5Byear%5D=desc']) {
      expect((await gateway.get(path)).status, path).toBe(200);
    }
    expect(upstream.seen.map((s) => s.url)).toEqual(['/v2/species?q=fir&order[year]=desc']);
    await gateway.get('/v2/species?q=fir&order[year]=desc&order[slug]=asc');
    await gateway.get('/v2/species?q=fir&order[slug]=asc&order[year]=desc');
    expect(upstream.seen.slice(1).map((s) => s.url)).toEqual([
      '/v2/species?q=fir&order[year]=desc&order[slug]=asc',
      '/v2/species?q=fir&order[slug]=asc&order[year]=desc',
    ]);
  });

  it('does not store Cache-Control: no-store answers', async () => {
    const upstream = await fake(numbered({ 'Cache-Control': 'no-store' }));
    const gateway = upstreamGateway(upstream.url, { tuning: { cacheTtlMs: 60_000, staleMs: 60_000 } });
    expect(await answerOf(await gateway.get('/v2/species'))).toBe('answer 1');
    expect(await answerOf(await gateway.get('/v2/species'))).toBe('answer 2');
    expect(gateway.cache.stats.entries).toBe(0);
    upstream.handler = down;
    expect((await gateway.get('/v2/species')).status, 'nothing stale to fall back on').toBe(502);
  });

  it('takes max-age as the TTL, capped by the configured TTL', async () => {
    const upstream = await fake(numbered({ 'Cache-Control': 'public, max-age=2' }));
    const gateway = upstreamGateway(upstream.url, { tuning: { cacheTtlMs: 60_000 } });
    await gateway.get('/v2/species');
    gateway.clock.advance(1_999);
    expect(await answerOf(await gateway.get('/v2/species'))).toBe('answer 1');
    gateway.clock.advance(1);
    expect(await answerOf(await gateway.get('/v2/species'))).toBe('answer 2');
    expect(freshnessMs('max-age=3600', 30_000)).toBe(30_000);
    expect(freshnessMs('max-age=10, s-maxage=5', 30_000)).toBe(5_000);
    expect(freshnessMs('no-cache', 30_000)).toBeUndefined();
    expect(freshnessMs('private, max-age=60', 30_000)).toBeUndefined();
    expect(freshnessMs(null, 30_000)).toBe(30_000);
  });

  it('serves a stale entry during an outage within UPSTREAM_STALE_MS after expiry, and not after', async () => {
    const upstream = await fake(numbered());
    const gateway = upstreamGateway(upstream.url, { tuning: { cacheTtlMs: 1_000, staleMs: 5_000 } });
    expect(await answerOf(await gateway.get('/v2/species'))).toBe('answer 1');
    upstream.handler = down;
    gateway.clock.advance(1_000 + 4_999);
    const stale = await gateway.get('/v2/species');
    expect(stale.status).toBe(200);
    expect(await answerOf(stale)).toBe('answer 1');
    expect(upstream.seen.length, 'the upstream was asked first').toBe(2);
    expect(gateway.upstreamLogs.some((l) => l.message === 'upstream failed: serving a stale response')).toBe(true);
    gateway.clock.advance(1);
    const gone = await gateway.get('/v2/species');
    expect(gone.status).toBe(502);
    expect((await json(gone)).code).toBe('upstream/unavailable');
  });

  it('serves stale while the breaker is open, without calling the upstream', async () => {
    const upstream = await fake(numbered());
    const gateway = upstreamGateway(upstream.url, { tuning: { cacheTtlMs: 1_000, staleMs: 60_000, retries: 0, breakerThreshold: 1 } });
    await gateway.get('/v2/species');
    await gateway.get('/v2/species?page=2');
    upstream.handler = down;
    gateway.clock.advance(2_000);
    expect((await gateway.get('/v2/species')).status, 'stale after the failure that opens the breaker').toBe(200);
    expect((await gateway.get('/v2/species?page=2')).status, 'stale, breaker open').toBe(200);
    expect((await gateway.get('/v2/species?page=3')).status, 'nothing cached, breaker open').toBe(502);
    expect(upstream.seen).toHaveLength(3);
  });

  it('coalesces identical concurrent requests into one upstream request', async () => {
    const upstream = await fake(async (req, res, n) => {
      await sleep(100);
      numbered()(req, res, n);
    });
    // No cache at all: only coalescing can save the calls.
    const gateway = upstreamGateway(upstream.url, { tuning: { cacheTtlMs: 0, staleMs: 0 } });
    const bodies = await Promise.all(Array.from({ length: 8 }, () => gateway.get('/v2/species?q=fir').then((r) => r.text())));
    const other = await gateway.get('/v2/species?q=pine');
    expect(new Set(bodies).size).toBe(1);
    expect(JSON.parse(bodies[0]!).data[0].common_name).toBe('answer 1');
    expect(other.status).toBe(200);
    expect(upstream.seen.map((s) => s.url)).toEqual(['/v2/species?q=fir', '/v2/species?q=pine']);
    // Once answered, the next request goes upstream again (nothing cached).
    await gateway.get('/v2/species?q=fir');
    expect(upstream.seen).toHaveLength(3);
  });

  it('is an LRU bounded by entries and by bytes', async () => {
    const clock = new ManualClock(0);
    const entry = (size: number) => ({ status: 200, body: 'x'.repeat(size), freshUntil: 10, staleUntil: 20 });
    const byCount = new MemoryResponseCache({ maxEntries: 2, maxBytes: 1_000_000 }, clock);
    await byCount.set('a', entry(1));
    await byCount.set('b', entry(1));
    await byCount.get('a');
    await byCount.set('c', entry(1));
    expect([await byCount.get('a'), await byCount.get('b'), await byCount.get('c')].map(Boolean)).toEqual([true, false, true]);
    // Each entry counts its 400-character body, its key and the per-entry overhead: two fit in 1,500 bytes, not three.
    const bySize = new MemoryResponseCache({ maxEntries: 100, maxBytes: 1_500 }, clock);
    for (const key of ['a', 'b', 'c']) await bySize.set(key, entry(400));
    expect(bySize.stats.entries).toBe(2);
    expect(bySize.stats.size).toBeLessThanOrEqual(1_500);
    clock.set(20);
    expect(await bySize.get('c'), 'gone once past staleUntil').toBeUndefined();
  });
});
