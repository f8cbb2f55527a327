/** Retries within a budget, and the circuit breaker, against a fake upstream on loopback. */
import { describe, expect, it } from 'vitest';
import { RequestTrace } from '../../../../src/core/request-trace';
import { CircuitBreaker } from '../../../../src/services/upstream/breaker';
import { RetryBudget } from '../../../../src/services/upstream/retry-budget';
import { json } from '../../../support/harness';
import { fakePage, fakesClosedAfterEach, pageOf, sendJson, upstreamGateway, type Handler } from '../../../support/upstream';

const fake = fakesClosedAfterEach();

const ok: Handler = (req, res) =>
  sendJson(res, req.url!.includes('/species/') ? { data: { id: 'SP1' }, meta: { last_modified: '2026-03-18T00:00:00Z' } } : fakePage(pageOf(req)));
const down: Handler = (_q, res) => sendJson(res, {}, 503);

describe('one retry, with jitter, within a budget', () => {
  it('a flaky upstream (fails once, then answers) gives 200 after 2 upstream requests', async () => {
    const upstream = await fake((req, res, n) => {
      if (n === 1) req.socket.destroy();
      else ok(req, res, n);
    });
    const gateway = upstreamGateway(upstream.url);
    const res = await gateway.get('/v2/species');
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await json(res)).data).toHaveLength(20);
    expect(upstream.seen).toHaveLength(2);
    // Both attempts carry the same request id: one caller request, retried.
    expect(upstream.seen[0]!.headers['svc-request-id']).toBe(upstream.seen[1]!.headers['svc-request-id']);
  });

  it.each([502, 503, 504])('an upstream that answers %i once, then answers, gives the caller 200 (one retry)', async (status) => {
    const upstream = await fake((req, res, n) => (n === 1 ? sendJson(res, { error: 'passing' }, status) : ok(req, res, n)));
    const res = await upstreamGateway(upstream.url).get('/v2/species/SP1');
    expect(res.status, await res.clone().text()).toBe(200);
    expect(upstream.seen).toHaveLength(2);
  });

  it('an upstream 500 is not retried: the caller gets 502 after one upstream request', async () => {
    const upstream = await fake((req, res, n) => (n === 1 ? sendJson(res, { error: 'boom' }, 500) : ok(req, res, n)));
    const res = await upstreamGateway(upstream.url).get('/v2/species/SP1');
    expect(res.status).toBe(502);
    expect(upstream.seen).toHaveLength(1);
  });

  it('stops retrying once the budget is spent, and earns it back with traffic', async () => {
    const upstream = await fake(down);
    // A burst of one retry, then one retry per ten requests.
    const gateway = upstreamGateway(upstream.url, { retryBudget: new RetryBudget(0.1, 1) });
    const calls = async () => {
      const before = upstream.seen.length;
      expect((await gateway.get('/v2/species')).status).toBe(502);
      return upstream.seen.length - before;
    };
    expect(await calls(), 'the burst allows one retry').toBe(2);
    for (let i = 0; i < 9; i++) expect(await calls(), `request ${i + 2}: budget spent`).toBe(1);
    expect(await calls(), 'ten requests earned one retry').toBe(2);
  });

  it('UPSTREAM_RETRY_BUDGET_PERCENT applies once a burst of 10 retries is spent', async () => {
    const upstream = await fake(down);
    const gateway = upstreamGateway(upstream.url, { tuning: { retryBudgetPercent: 10 } });
    const calls: number[] = [];
    for (let i = 0; i < 12; i++) {
      const before = upstream.seen.length;
      expect((await gateway.get('/v2/species')).status).toBe(502);
      calls.push(upstream.seen.length - before);
    }
    // The burst of 10, and the one retry the 11 requests earned at 10 %; the 12th finds none.
    expect(calls).toEqual([...Array(11).fill(2), 1]);
  });

  it('notes each attempt on the request trace with its own span, status and reason, and the call as one', async () => {
    const upstream = await fake((req, res, n) => (n === 1 ? sendJson(res, {}, 502) : ok(req, res, n)));
    const gateway = upstreamGateway(upstream.url);
    const trace = RequestTrace.start();
    const began = performance.now();
    await gateway.source.list('species', { q: undefined, order: [], page: 1 }, undefined, { requestId: 'r1', trace });
    const took = performance.now() - began;
    const attempts = trace.attempts ?? [];
    expect(attempts.map((a) => [a.backend, a.url, a.status, a.error])).toEqual([
      ['upstream', `${upstream.url}/v2/species`, 502, 'answered 502'],
      ['upstream', `${upstream.url}/v2/species`, 200, undefined],
    ]);
    expect(upstream.seen.map((s) => s.headers.traceparent)).toEqual(attempts.map((a) => `00-${trace.traceId}-${a.spanId}-01`));
    expect(trace.calls?.map((c) => [c.backend, c.status, c.outcome])).toEqual([['upstream', 200, 'ok']]);
    for (const { durationMs } of [...attempts, ...trace.calls!, ...gateway.upstreamMetrics.calls]) expect(durationMs).toBeLessThanOrEqual(took);
    expect(gateway.upstreamMetrics.calls.map((c) => c.outcome)).toEqual(['5xx', 'ok']);
  });

  it('UPSTREAM_RETRIES=0 never retries', async () => {
    const upstream = await fake(down);
    const gateway = upstreamGateway(upstream.url, { tuning: { retries: 0 } });
    expect((await gateway.get('/v2/species')).status).toBe(502);
    expect(upstream.seen).toHaveLength(1);
  });
});

describe('circuit breaker', () => {
  it('opens after N consecutive failures, fails fast without calling, probes once after the cool-down', async () => {
    const upstream = await fake(down);
    const gateway = upstreamGateway(upstream.url, { tuning: { retries: 0, breakerThreshold: 3, breakerCooldownMs: 10_000 } });
    for (let i = 0; i < 3; i++) expect((await gateway.get('/v2/species')).status).toBe(502);
    expect(upstream.seen).toHaveLength(3);

    // Open: no upstream call, a 502 that says when to come back.
    gateway.clock.advance(4_000);
    const fast = await gateway.get('/v2/species/SP1');
    expect(fast.status).toBe(502);
    expect((await json(fast)).code).toBe('upstream/unavailable');
    expect(fast.headers.get('retry-after')).toBe('6');
    expect(upstream.seen).toHaveLength(3);
    expect(gateway.source.ready).toBeDefined();
    expect((await json(await gateway.get('/readyz', {}))).upstream.breaker).toBe('open');
    expect(upstream.seen, 'readiness does not probe an open breaker').toHaveLength(3);

    // Half-open after the cool-down: one probe; it fails, so the breaker opens again.
    gateway.clock.advance(6_000);
    expect((await gateway.get('/v2/species')).status).toBe(502);
    expect(upstream.seen).toHaveLength(4);
    expect((await gateway.get('/v2/species')).status).toBe(502);
    expect(upstream.seen, 'open again: fails fast').toHaveLength(4);

    // The next probe succeeds and closes the breaker.
    upstream.handler = ok;
    gateway.clock.advance(10_000);
    expect((await gateway.get('/v2/species')).status).toBe(200);
    expect((await gateway.get('/v2/species?page=2')).status).toBe(200);
    expect(upstream.seen).toHaveLength(6);
    expect(gateway.upstreamLogs.map((l) => l.message).filter((m) => String(m).startsWith('upstream circuit breaker'))).toEqual([
      'upstream circuit breaker open',
      'upstream circuit breaker open',
      'upstream circuit breaker closed',
    ]);
    expect(gateway.upstreamLogs.filter((l) => String(l.message).startsWith('upstream circuit breaker')).map((l) => l.level)).toEqual([
      'error',
      'error',
      'info',
    ]);
  });

  it('its state is what the metrics read, and the calls it stops are counted as breaker_open', async () => {
    const upstream = await fake(down);
    const gateway = upstreamGateway(upstream.url, { tuning: { retries: 0, breakerThreshold: 1, breakerCooldownMs: 10_000 } });
    const state = gateway.upstreamMetrics.breakers.get('upstream')!;
    expect(state()).toBe('closed');
    await gateway.get('/v2/species');
    expect(state()).toBe('open');
    const fast = await gateway.get('/v2/species');
    expect(fast.status).toBe(502);
    expect((await json(fast)).detail).toBe('The upstream service is failing; the gateway is not calling it for now.');
    expect(gateway.upstreamMetrics.calls.map((c) => [c.backend, c.outcome])).toEqual([
      ['upstream', '5xx'],
      ['upstream', 'breaker_open'],
    ]);
    expect(gateway.upstreamMetrics.calls[1]!.durationMs).toBe(0);
    const line = gateway.accessLine(1);
    expect([line.backend, line.backend_status, line.backend_outcome]).toEqual(['upstream', null, 'breaker_open']);
    gateway.clock.advance(10_000);
    expect(state()).toBe('half-open');
  });

  it('lets only one probe through while half-open', async () => {
    const upstream = await fake(async (req, res, n) => {
      if (n <= 2) return down(req, res, n);
      await new Promise((r) => setTimeout(r, 100));
      ok(req, res, n);
    });
    const gateway = upstreamGateway(upstream.url, { tuning: { retries: 0, breakerThreshold: 2, breakerCooldownMs: 1_000 } });
    await gateway.get('/v2/species');
    await gateway.get('/v2/species');
    gateway.clock.advance(1_000);
    const statuses = await Promise.all(['/v2/species?page=2', '/v2/species?page=3', '/v2/species/SP1'].map(async (p) => (await gateway.get(p)).status));
    expect(statuses.sort()).toEqual([200, 502, 502]);
    expect(upstream.seen).toHaveLength(3);
  });

  it('does not count 404s or a refused gateway credential as an outage', async () => {
    const upstream = await fake((req, res) => sendJson(res, {}, req.url!.includes('/species/') ? 404 : 401));
    const gateway = upstreamGateway(upstream.url, { tuning: { retries: 0, breakerThreshold: 2 } });
    for (let i = 0; i < 4; i++) {
      expect((await gateway.get('/v2/species/ZZNONE')).status).toBe(404);
      expect((await gateway.get('/v2/species')).status).toBe(502);
    }
    expect(upstream.seen).toHaveLength(8);
  });

  it.each([401, 403, 400])('does not open on answers it would not cure: only %i, again and again', async (status) => {
    const upstream = await fake((_q, res) => sendJson(res, {}, status));
    const gateway = upstreamGateway(upstream.url, { tuning: { retries: 0, breakerThreshold: 2 } });
    for (let i = 0; i < 3; i++) expect((await gateway.get('/v2/species')).status).toBe(502);
    expect(upstream.seen).toHaveLength(3);
    expect(gateway.upstreamMetrics.breakers.get('upstream')!()).toBe('closed');
  });

  it('is a small class driven by the injected clock', () => {
    let now = 0;
    const breaker = new CircuitBreaker(2, 100, { now: () => now });
    breaker.failure();
    expect(breaker.state).toBe('closed');
    breaker.success();
    breaker.failure();
    expect(breaker.state, 'failures must be consecutive').toBe('closed');
    breaker.failure();
    expect([breaker.state, breaker.allow(), breaker.retryAfterMs()]).toEqual(['open', false, 100]);
    now = 100;
    expect([breaker.state, breaker.allow(), breaker.allow()]).toEqual(['half-open', true, false]);
    breaker.success();
    expect([breaker.state, breaker.allow()]).toEqual(['closed', true]);
  });
});
