/** Stale copies during an upstream hang: answered after UPSTREAM_STALE_AFTER_MS, not the full timeout; warn lines aggregated. */
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { json } from '../../../support/harness';
import { fakePage, fakesClosedAfterEach, pageOf, sendJson, sleep, upstreamGateway, type Handler } from '../../../support/upstream';

const fake = fakesClosedAfterEach();

/** Pages whose records say which upstream answer they came from. */
const numbered: Handler = (req, res, n) => {
  const page = fakePage(pageOf(req)) as { data: Array<Record<string, unknown>> };
  page.data.forEach((r) => {
    r.common_name = `answer ${n}`;
  });
  sendJson(res, page, 200);
};
const answerOf = async (res: Response) => (await json(res)).data[0].common_name;

/** An upstream that answers nothing until the test lets it. */
function hanging(): { handler: Handler; held: Array<{ res: ServerResponse; n: number; page: number }> } {
  const held: Array<{ res: ServerResponse; n: number; page: number }> = [];
  return { held, handler: (req, res, n) => void held.push({ res, n, page: pageOf(req) }) };
}

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await condition()) return;
    await sleep(10);
  }
  throw new Error(`timed out waiting for ${what}`);
}

const staleLines = (lines: Array<Record<string, unknown>>) => lines.filter((l) => l.message === 'upstream failed: serving a stale response');

describe('a stale copy answers after UPSTREAM_STALE_AFTER_MS while the upstream hangs', () => {
  // A timeout no test reaches: an answer that came at all while the upstream call is still open
  // came from the stale deadline, not from the timeout.
  const tuning = { cacheTtlMs: 1_000, staleMs: 600_000, timeoutMs: 20_000, staleAfterMs: 100, retries: 0 };

  it('answers with the stale copy while the call is still open, and the call then refreshes the cache', async () => {
    const upstream = await fake(numbered);
    const gateway = upstreamGateway(upstream.url, { tuning });
    expect(await answerOf(await gateway.get('/v2/species'))).toBe('answer 1');
    const hang = hanging();
    upstream.handler = hang.handler;
    gateway.clock.advance(1_500);

    for (let i = 0; i < 3; i++) {
      const res = await gateway.get('/v2/species');
      expect(res.status).toBe(200);
      expect(await answerOf(res)).toBe('answer 1');
      expect(upstream.open, 'the upstream call is still under way').toBe(1);
    }
    expect(upstream.seen, 'concurrent and later requests share the one call under way').toHaveLength(2);

    // The upstream answers within its timeout: the cache holds the new answer, fresh.
    const [call] = hang.held;
    const page = fakePage(call!.page) as { data: Array<Record<string, unknown>> };
    page.data.forEach((r) => {
      r.common_name = 'answer 2';
    });
    sendJson(call!.res, page);
    await until(async () => ((await gateway.cache.get('/v2/species'))?.freshUntil ?? 0) > gateway.clock.now(), 'the refreshed cache entry');
    expect(await answerOf(await gateway.get('/v2/species'))).toBe('answer 2');
    expect(upstream.seen, 'answered from the refreshed cache').toHaveLength(2);
  });

  it('without a stale copy, waits for the upstream (here its timeout)', async () => {
    const hang = hanging();
    const upstream = await fake(hang.handler);
    const gateway = upstreamGateway(upstream.url, { tuning: { ...tuning, timeoutMs: 300 } });
    const res = await gateway.get('/v2/species');
    expect(res.status).toBe(504);
    expect((await json(res)).code).toBe('upstream/timeout');
  });

  it('a stale copy past UPSTREAM_STALE_MS is not served: the request waits for the upstream', async () => {
    const upstream = await fake(numbered);
    const gateway = upstreamGateway(upstream.url, { tuning: { ...tuning, staleMs: 1_000 } });
    expect(await answerOf(await gateway.get('/v2/species'))).toBe('answer 1');
    const hang = hanging();
    upstream.handler = hang.handler;
    gateway.clock.advance(2_000);
    const pending = gateway.get('/v2/species');
    await until(() => hang.held.length === 1, 'the upstream call');
    await sleep(300);
    sendJson(hang.held[0]!.res, fakePage());
    expect((await pending).status, 'the upstream answer, not a stale copy').toBe(200);
    expect(staleLines(gateway.upstreamLogs)).toEqual([]);
  });
});

describe('stale warn lines: one per key per minute, with a count', () => {
  it('counts the stale answers of a key between its lines; each key has its own', async () => {
    const upstream = await fake(numbered);
    const gateway = upstreamGateway(upstream.url, { tuning: { cacheTtlMs: 1_000, staleMs: 600_000, retries: 0 } });
    await gateway.get('/v2/species');
    await gateway.get('/v2/species?page=2');
    upstream.handler = (_req, res) => sendJson(res, {}, 500);
    gateway.clock.advance(1_500);

    for (let i = 0; i < 5; i++) expect(await answerOf(await gateway.get('/v2/species'))).toBe('answer 1');
    expect(staleLines(gateway.upstreamLogs).map((l) => [l.upstream_path, l.stale_count])).toEqual([['/v2/species', 1]]);

    gateway.clock.advance(59_000);
    await gateway.get('/v2/species');
    await gateway.get('/v2/species?page=2');
    expect(
      staleLines(gateway.upstreamLogs).map((l) => [l.upstream_path, l.stale_count]),
      'still within the minute of the first key',
    ).toEqual([
      ['/v2/species', 1],
      ['/v2/species?page=2', 1],
    ]);

    gateway.clock.advance(1_000);
    await gateway.get('/v2/species');
    const lines = staleLines(gateway.upstreamLogs);
    expect(
      lines.map((l) => [l.upstream_path, l.stale_count]),
      'a minute on: every answer since the last line',
    ).toEqual([
      ['/v2/species', 1],
      ['/v2/species?page=2', 1],
      ['/v2/species', 6],
    ]);
    expect(lines[2]).toMatchObject({ level: 'warn', code: 'upstream/unavailable' });
  });

  it('a slow upstream is logged the same way, with the deadline that was passed', async () => {
    const upstream = await fake(numbered);
    const gateway = upstreamGateway(upstream.url, { tuning: { cacheTtlMs: 1_000, staleMs: 600_000, timeoutMs: 20_000, staleAfterMs: 50, retries: 0 } });
    await gateway.get('/v2/species');
    upstream.handler = hanging().handler;
    gateway.clock.advance(1_500);
    await gateway.get('/v2/species');
    await gateway.get('/v2/species');
    expect(staleLines(gateway.upstreamLogs)).toEqual([expect.objectContaining({ upstream_path: '/v2/species', slow_ms: 50, stale_count: 1 })]);
  });
});
