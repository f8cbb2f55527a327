/** The upstream response cache: freshness from Cache-Control, stale-on-error within a bound, coalescing. */
import { describe, expect, it } from 'vitest';
import { freshnessMs } from '../../../../src/services/upstream/freshness';
import { MemoryResponseCache } from '../../../../src/services/cache/memory-response-cache';
import { ManualClock } from '../../../../src/services/clock';
import { DEMO, json } from '../../../support/harness';
import { fakePage, fakesClosedAfterEach, pageOf, sendJson, sleep, upstreamGateway, type Handler, type UpstreamGateway } from '../../../support/upstream';

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
    expect(gateway.upstreamLogs.find((l) => l.message === 'upstream failed: serving a stale response')).toMatchObject({
      level: 'warn',
      code: 'upstream/unavailable',
      upstream_path: '/v2/species',
      request_id: stale.headers.get('svc-request-id'),
      trace_id: gateway.accessLine(1).trace_id,
      stale_ms: 4_999,
    });
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
    expect(bySize.stats.entries, 'and no longer counted').toBe(1);
  });

  it('keeps an answer whose TTL equals UPSTREAM_STALE_MS, and stores nothing when both are 0', async () => {
    const upstream = await fake(numbered());
    const kept = upstreamGateway(upstream.url, { tuning: { cacheTtlMs: 1_000, staleMs: 1_000 } });
    await kept.get('/v2/species');
    expect(await answerOf(await kept.get('/v2/species'))).toBe('answer 1');
    const none = upstreamGateway(upstream.url, { tuning: { cacheTtlMs: 0, staleMs: 0 } });
    expect((await none.get('/v2/species')).status).toBe(200);
    expect(none.cache.stats.entries).toBe(0);
  });

  it('asks the upstream again the moment the TTL ends, and serves the stale copy then if it fails', async () => {
    const upstream = await fake(numbered());
    const gateway = upstreamGateway(upstream.url, { tuning: { cacheTtlMs: 1_000, staleMs: 60_000 } });
    await gateway.get('/v2/species');
    await gateway.get('/v2/species?page=2');
    gateway.clock.advance(1_000);
    expect(await answerOf(await gateway.get('/v2/species')), 'the upstream, no longer the cache').toBe('answer 3');
    upstream.handler = down;
    expect(await answerOf(await gateway.get('/v2/species?page=2')), 'stale from its first moment').toBe('answer 2');
  });

  it('does not serve a cached body that no longer validates: the upstream answers instead', async () => {
    const upstream = await fake(numbered());
    const gateway = upstreamGateway(upstream.url, { tuning: { cacheTtlMs: 60_000 } });
    const now = gateway.clock.now();
    await gateway.cache.set('/v2/species', { status: 200, body: '{"data": [', freshUntil: now + 60_000, staleUntil: now + 60_000 });
    expect(await answerOf(await gateway.get('/v2/species'))).toBe('answer 1');
    expect(upstream.seen).toHaveLength(1);
  });

  it('answers well when the cache refuses to store, and logs it', async () => {
    const upstream = await fake(numbered());
    const gateway = upstreamGateway(upstream.url, { tuning: { cacheTtlMs: 60_000 } });
    gateway.cache.set = () => Promise.reject(new Error('cache full'));
    expect((await gateway.get('/v2/species')).status).toBe(200);
    expect(gateway.upstreamLogs).toEqual([{ level: 'warn', message: 'upstream cache refused an entry', error: 'cache full' }]);
  });

  it('does not cache a 404, and logs nothing for it', async () => {
    const upstream = await fake((_q, res) => sendJson(res, {}, 404));
    const gateway = upstreamGateway(upstream.url, { tuning: { cacheTtlMs: 60_000, staleMs: 60_000 } });
    expect((await gateway.get('/v2/species/ZZNONE')).status).toBe(404);
    expect((await gateway.get('/v2/species/ZZNONE')).status).toBe(404);
    expect(upstream.seen).toHaveLength(2);
    expect(gateway.cache.stats.entries).toBe(0);
    expect(gateway.upstreamLogs).toEqual([]);
  });

  it('serves a stale copy to a read outside any request (no trace) too', async () => {
    const upstream = await fake(numbered());
    const gateway = upstreamGateway(upstream.url, { tuning: { cacheTtlMs: 1_000, staleMs: 60_000 } });
    const query = { q: undefined, order: [], page: 1 };
    await gateway.source.list('species', query, undefined, { requestId: 'r1' });
    upstream.handler = down;
    gateway.clock.advance(1_500);
    const page = await gateway.source.list('species', query, undefined, { requestId: 'r2' });
    expect(page?.items[0]?.common_name).toBe('answer 1');
    expect(gateway.upstreamLogs.at(-1)).toMatchObject({ message: 'upstream failed: serving a stale response', request_id: 'r2', trace_id: undefined });
  });

  it('does not serve an entry past UPSTREAM_STALE_MS even from a cache that still holds it', async () => {
    const upstream = await fake(numbered());
    const gateway = upstreamGateway(upstream.url, { tuning: { cacheTtlMs: 1_000, staleMs: 1_000 } });
    await gateway.get('/v2/species');
    const entry = (await gateway.cache.get('/v2/species'))!;
    // A cache that keeps entries past their end (an edge cache evicts when it likes).
    gateway.cache.get = async () => entry;
    upstream.handler = down;
    gateway.clock.advance(2_000);
    expect((await gateway.get('/v2/species')).status).toBe(502);
  });

  it('a warm cache answers from the records and bytes made once per entry', async () => {
    const upstream = await fake((req, res) =>
      sendJson(res, req.url!.includes('/species/') ? { data: { id: 'SP1' }, meta: { last_modified: '2026-03-18T00:00:00Z' } } : fakePage()),
    );
    const { source } = upstreamGateway(upstream.url, { tuning: { cacheTtlMs: 60_000 } });
    const query = { q: undefined, order: [], page: 1 };
    const ctx = { requestId: 'r1' };
    // Warmed: the first answers are the upstream's own, the next ones the cache entry's.
    await source.stored.list('species', query, undefined, ctx);
    await source.stored.get('species', 'SP1', ctx);
    const lists = [await source.stored.list('species', query, undefined, ctx), await source.stored.list('species', query, undefined, ctx)];
    expect(lists[1]!.items).toBe(lists[0]!.items);
    expect((await source.list('species', query, undefined, ctx))!.items).toBe((await source.list('species', query, undefined, ctx))!.items);
    expect(await source.stored.get('species', 'SP1', ctx)).toBe(await source.stored.get('species', 'SP1', ctx));
    expect(upstream.seen).toHaveLength(2);
  });
});

describe('where each answer came from: the access line and the metrics', () => {
  /** Holds the upstream's requests until the test answers them. */
  function held(): { handler: Handler; count(): number; release(answer: Handler): void } {
    const waiting: Array<Parameters<Handler>> = [];
    return {
      handler: (req, res, n) => void waiting.push([req, res, n]),
      count: () => waiting.length,
      release: (answer) => {
        for (const request of waiting.splice(0)) void answer(...request);
      },
    };
  }

  /** Counts the cache lookups, so a test knows a request has reached the upstream source. */
  function lookups(gateway: UpstreamGateway): () => number {
    let count = 0;
    const get = gateway.cache.get.bind(gateway.cache);
    gateway.cache.get = (key) => {
      count++;
      return get(key);
    };
    return () => count;
  }

  async function until(condition: () => boolean, what: string): Promise<void> {
    for (let i = 0; i < 1_000; i++) {
      if (condition()) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
    throw new Error(`never happened: ${what}`);
  }

  it('miss, hit, miss and coalesced on a call under way (with a stale copy at hand), stale; failed reads too', async () => {
    const upstream = await fake(numbered());
    const gateway = upstreamGateway(upstream.url, { tuning: { cacheTtlMs: 1_000, staleMs: 60_000, staleAfterMs: 20_000, timeoutMs: 20_000, retries: 0 } });
    const looked = lookups(gateway);
    await gateway.get('/v2/species');
    await gateway.get('/v2/species');

    // Expired, within the stale window: both wait for the one call under way, which answers.
    gateway.clock.advance(1_000);
    const hold = held();
    upstream.handler = hold.handler;
    const first = gateway.get('/v2/species');
    await until(() => hold.count() === 1, 'the upstream call');
    const second = gateway.get('/v2/species');
    await until(() => looked() === 4, 'the second lookup');
    await new Promise((resolve) => setImmediate(resolve));
    hold.release(numbered());
    expect([await answerOf(await first), await answerOf(await second)]).toEqual(['answer 2', 'answer 2']);

    upstream.handler = down;
    gateway.clock.advance(1_000);
    expect(await answerOf(await gateway.get('/v2/species'))).toBe('answer 2');

    // Nothing cached for page 2: both fail, one having joined the other's call.
    const failing = held();
    upstream.handler = failing.handler;
    const failed = [gateway.get('/v2/species?page=2')];
    await until(() => failing.count() === 1, 'the failing call');
    failed.push(gateway.get('/v2/species?page=2'));
    await until(() => looked() === 7, 'the joined lookup');
    await new Promise((resolve) => setImmediate(resolve));
    failing.release(down);
    expect((await Promise.all(failed)).map((r) => r.status)).toEqual([502, 502]);

    const lines = Array.from({ length: 7 }, (_, i) => gateway.accessLine(i));
    expect(lines.map((l) => l.upstream_cache)).toEqual(['miss', 'hit', 'miss', 'coalesced', 'stale', 'miss', 'coalesced']);
    expect(lines.map((l) => l.backend_outcome)).toEqual(['ok', undefined, 'ok', undefined, '5xx', '5xx', undefined]);
    expect(gateway.upstreamMetrics.lookups).toEqual(['miss', 'hit', 'miss', 'coalesced', 'stale', 'miss', 'coalesced']);
    for (const call of gateway.upstreamMetrics.calls) expect(call.durationMs).toBeLessThanOrEqual(Math.max(...lines.map((l) => l.duration_ms as number)));
  });
});
