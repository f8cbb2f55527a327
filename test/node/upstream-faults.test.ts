/**
 * Every way an upstream can fail maps to a clear problem within the timeout: a fake upstream on
 * loopback misbehaves on purpose, and a gateway in upstream mode fronts it.
 */
import { describe, expect, it } from 'vitest';
import { json } from '../support/harness';
import { closedPort, fakePage, fakesClosedAfterEach, pageOf, sendJson, sleep, TEST_TUNING, upstreamGateway, type Handler } from '../support/upstream';

const fake = fakesClosedAfterEach();

const TIMEOUT = TEST_TUNING.timeoutMs;

interface Case {
  name: string;
  handler: Handler;
  path?: string;
  status: number;
  code: string;
  headers?: Record<string, string>;
  /** How many requests the upstream sees (2 when the one retry applies). */
  upstreamCalls: number;
}

const CASES: Case[] = [
  {
    name: 'slower than the timeout',
    handler: async (_q, res) => {
      await sleep(TIMEOUT * 3);
      sendJson(res, fakePage());
    },
    status: 504,
    code: 'upstream/timeout',
    upstreamCalls: 1,
  },
  {
    name: 'stalling mid-body',
    handler: (_q, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '5000' });
      res.write('{"data":[');
    },
    status: 504,
    code: 'upstream/timeout',
    upstreamCalls: 1,
  },
  { name: '500', handler: (_q, res) => sendJson(res, { error: 'boom' }, 500), status: 502, code: 'upstream/unavailable', upstreamCalls: 1 },
  { name: '502 (retried once)', handler: (_q, res) => sendJson(res, 'bad gateway', 502), status: 502, code: 'upstream/unavailable', upstreamCalls: 2 },
  { name: '503 without Retry-After (retried once)', handler: (_q, res) => sendJson(res, {}, 503), status: 502, code: 'upstream/unavailable', upstreamCalls: 2 },
  {
    name: '503 with Retry-After',
    handler: (_q, res) => sendJson(res, {}, 503, { 'Retry-After': '7' }),
    status: 503,
    code: 'upstream/backOff',
    headers: { 'retry-after': '7' },
    upstreamCalls: 1,
  },
  {
    name: '429 with Retry-After (the gateway itself is throttled)',
    handler: (_q, res) => sendJson(res, {}, 429, { 'Retry-After': '30' }),
    status: 503,
    code: 'upstream/backOff',
    headers: { 'retry-after': '30' },
    upstreamCalls: 1,
  },
  { name: 'malformed JSON', handler: (_q, res) => sendJson(res, '{"data": [', 200), status: 502, code: 'upstream/unavailable', upstreamCalls: 1 },
  {
    name: 'an HTML page',
    handler: (_q, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end('<html>hi</html>');
    },
    status: 502,
    code: 'upstream/unavailable',
    upstreamCalls: 1,
  },
  {
    name: 'a truncated body (Content-Length larger than the body, then the socket closes)',
    handler: (_q, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '5000' });
      res.write('{"data":[{"id":"A"}');
      setTimeout(() => res.socket?.destroy(), 20);
    },
    status: 502,
    code: 'upstream/unavailable',
    upstreamCalls: 2,
  },
  { name: 'a socket destroyed before any answer', handler: (req) => req.socket.destroy(), status: 502, code: 'upstream/unavailable', upstreamCalls: 2 },
  {
    name: 'a wrong envelope (no data array)',
    handler: (_q, res) => sendJson(res, { items: [], total: 0 }),
    status: 502,
    code: 'upstream/unavailable',
    upstreamCalls: 1,
  },
  {
    name: 'records without string id',
    handler: (_q, res) => {
      const p = fakePage() as any;
      p.data[3].id = 7;
      sendJson(res, p);
    },
    status: 502,
    code: 'upstream/unavailable',
    upstreamCalls: 1,
  },
  {
    name: 'fewer records than the total implies',
    handler: (_q, res) => {
      const p = fakePage() as any;
      p.data.pop();
      sendJson(res, p);
    },
    status: 502,
    code: 'upstream/unavailable',
    upstreamCalls: 1,
  },
  {
    name: 'another page size',
    handler: (_q, res) => {
      const p = fakePage() as any;
      p.meta.per_page = 10;
      sendJson(res, p);
    },
    status: 502,
    code: 'upstream/unavailable',
    upstreamCalls: 1,
  },
  { name: 'a page other than the one asked', handler: (_q, res) => sendJson(res, fakePage(2)), status: 502, code: 'upstream/unavailable', upstreamCalls: 1 },
  {
    name: 'a negative total',
    handler: (_q, res) => {
      const p = fakePage() as any;
      p.meta.total = -1;
      sendJson(res, p);
    },
    status: 502,
    code: 'upstream/unavailable',
    upstreamCalls: 1,
  },
  {
    name: 'a detail for another id',
    path: '/v2/species/SP1',
    handler: (_q, res) => sendJson(res, { data: { id: 'SP2' }, meta: { last_modified: '2026-03-18T00:00:00Z' } }),
    status: 502,
    code: 'upstream/unavailable',
    upstreamCalls: 1,
  },
  {
    name: 'a detail without last_modified',
    path: '/v2/species/SP1',
    handler: (_q, res) => sendJson(res, { data: { id: 'SP1' }, meta: {} }),
    status: 502,
    code: 'upstream/unavailable',
    upstreamCalls: 1,
  },
  {
    name: 'a redirect',
    handler: (_q, res) => {
      res.writeHead(301, { Location: 'http://127.0.0.1:1/' });
      res.end();
    },
    status: 502,
    code: 'upstream/unavailable',
    upstreamCalls: 1,
  },
  { name: "401 to the gateway's own credential", handler: (_q, res) => sendJson(res, {}, 401), status: 502, code: 'upstream/unavailable', upstreamCalls: 1 },
  { name: "403 to the gateway's own credential", handler: (_q, res) => sendJson(res, {}, 403), status: 502, code: 'upstream/unavailable', upstreamCalls: 1 },
  {
    name: '400 (the upstream disagrees about the query)',
    handler: (_q, res) => sendJson(res, {}, 400),
    status: 502,
    code: 'upstream/unavailable',
    upstreamCalls: 1,
  },
  {
    name: 'a 404 on page 1 of a collection (wrong UPSTREAM_URL)',
    handler: (_q, res) => sendJson(res, {}, 404),
    status: 502,
    code: 'upstream/unavailable',
    upstreamCalls: 1,
  },
];

describe('upstream faults become problems, within the timeout', () => {
  it.each(CASES)('$name -> $status $code', async (c) => {
    const upstream = await fake(c.handler);
    const gateway = upstreamGateway(upstream.url);
    const res = await gateway.get(c.path ?? '/v2/species');
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(c.status);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(body.code).toBe(c.code);
    expect(body.instance).toBe(`urn:botanical:request:${res.headers.get('svc-request-id')}`);
    for (const [name, value] of Object.entries(c.headers ?? {})) expect(res.headers.get(name), name).toBe(value);
    // Within the timeout without a clock: the slow upstream answers at three timeouts, so its 504
    // is the deadline's; the others' codes are not upstream/timeout, so none waited for it.
    expect(upstream.seen.length, 'upstream requests').toBe(c.upstreamCalls);
    // No upstream detail, body or status text leaks into the caller's problem.
    expect(JSON.stringify(body)).not.toMatch(/boom|bad gateway|html|127\.0\.0\.1/);
  });

  it('a closed port (connection refused) -> 502 upstream/unavailable, fast', async () => {
    const gateway = upstreamGateway(await closedPort());
    const res = await gateway.get('/v2/species/ABAL3');
    const body = await json(res);
    // Not upstream/timeout: the refusal is answered at once, not at the deadline.
    expect(res.status, JSON.stringify(body)).toBe(502);
    expect(body.code).toBe('upstream/unavailable');
    expect(gateway.upstreamLogs.filter((l) => String(l.message).includes('ECONNREFUSED')).length, 'one attempt and one retry').toBe(2);
  });

  it("logs a refused gateway credential as an error naming UPSTREAM_AUTHORIZATION, not as the caller's 401", async () => {
    const upstream = await fake((_q, res) => sendJson(res, {}, 401));
    const gateway = upstreamGateway(upstream.url, { authorization: 'ApiKey stale-gateway-key' });
    const res = await gateway.get('/v2/species');
    expect(res.status).toBe(502);
    expect(res.headers.get('www-authenticate')).toBeNull();
    const line = gateway.upstreamLogs.find((l) => l.level === 'error');
    expect(line?.message).toMatch(/UPSTREAM_AUTHORIZATION/);
    expect(JSON.stringify(gateway.upstreamLogs)).not.toContain('stale-gateway-key');
  });

  it('an upstream 404 on a detail or a scoped list stays 404 svc/notFound', async () => {
    const upstream = await fake((_q, res) => sendJson(res, { code: 'svc/notFound' }, 404));
    const gateway = upstreamGateway(upstream.url);
    for (const path of ['/v2/species/ZZNONE', '/v2/genus/ZZNONE/species', '/v2/genus/ZZNONE/species?page=4']) {
      const res = await gateway.get(path);
      const body = await json(res);
      expect(res.status, `${path}: ${JSON.stringify(body)}`).toBe(404);
      expect(body.code).toBe('svc/notFound');
    }
  });

  it('never passes upstream links through: the gateway renders its own from the page it walked', async () => {
    const upstream = await fake((req, res) =>
      sendJson(res, {
        ...fakePage(pageOf(req)),
        links: { self: 'https://upstream.internal/v2/species?page=2&token=t', next: 'https://upstream.internal/next' },
      }),
    );
    const gateway = upstreamGateway(upstream.url);
    const body = await json(await gateway.get('/v2/species?order[year]=desc&page=2'));
    expect(body.links).toEqual({
      self: '/v2/species?order[year]=desc&page=2',
      first: '/v2/species?order[year]=desc&page=1',
      prev: '/v2/species?order[year]=desc&page=1',
      next: '/v2/species?order[year]=desc&page=3',
      last: '/v2/species?order[year]=desc&page=3',
    });
  });

  it('an upstream 404 past page 1 is a 404 worded from the total of page 1', async () => {
    const upstream = await fake((req, res) => (pageOf(req) === 1 ? sendJson(res, fakePage(1, 45)) : sendJson(res, {}, 404)));
    const gateway = upstreamGateway(upstream.url);
    const res = await gateway.get('/v2/species?page=7');
    const body = await json(res);
    expect(res.status).toBe(404);
    expect(body.detail).toBe('Page 7 is past the last page (3).');
    expect(upstream.seen.map((s) => s.url)).toEqual(['/v2/species?page=7', '/v2/species']);
  });
});
