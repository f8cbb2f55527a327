/**
 * Every way an upstream can fail maps to a clear problem within the timeout: a fake upstream on
 * loopback misbehaves on purpose, and a gateway in upstream mode fronts it.
 */
import { describe, expect, it } from 'vitest';
import type { UpstreamTuning } from '../../../../src/config';
import type { BackendOutcome } from '../../../../src/services/metrics';
import { MAX_BODY_BYTES } from '../../../../src/services/upstream/client';
import { json } from '../../../support/harness';
import { closedPort, fakePage, fakesClosedAfterEach, pageOf, sendJson, sleep, upstreamGateway, type Handler } from '../../../support/upstream';

const fake = fakesClosedAfterEach();

/** The deadline of the cases about it (the others keep the default, a guard). */
const TIMEOUT = 400;

interface Case {
  name: string;
  handler: Handler;
  path?: string;
  status: number;
  code: string;
  headers?: Record<string, string | null>;
  /** How many requests the upstream sees (2 when the one retry applies). */
  upstreamCalls: number;
  /** The problem's `detail`, where it says more than the code. */
  detail?: string;
  /** The access line's `backend_status` and `backend_outcome`. */
  backend?: [number | null, BackendOutcome];
  /** How the metrics count each attempt. */
  attempts?: BackendOutcome[];
  /** The upstream source's log line of the first attempt: its level and message. */
  log?: ['warn' | 'error', string];
  tuning?: Partial<UpstreamTuning>;
}

/** Time enough to move 8 MiB over loopback on a busy machine: these cases are about size, not time. */
const BIG_BODY_TUNING = { timeoutMs: 20_000 };

const malformed = (why: string): Pick<Case, 'backend' | 'attempts' | 'log'> => ({
  backend: [200, 'invalid'],
  attempts: ['invalid'],
  log: ['error', `upstream answered a malformed body: ${why}`],
});

/** `body` as JSON, padded with spaces (still valid JSON) to exactly `bytes` bytes. */
const padded = (body: unknown, bytes: number) => {
  const text = JSON.stringify(body);
  return text + ' '.repeat(bytes - Buffer.byteLength(text));
};

const CASES: Case[] = [
  {
    name: 'slower than the timeout',
    tuning: { timeoutMs: TIMEOUT },
    handler: async (_q, res) => {
      await sleep(TIMEOUT * 3);
      sendJson(res, fakePage());
    },
    status: 504,
    code: 'upstream/timeout',
    upstreamCalls: 1,
    detail: `The upstream service did not answer within ${TIMEOUT} ms.`,
    backend: [null, 'timeout'],
    attempts: ['timeout'],
    log: ['warn', 'upstream timed out'],
  },
  {
    name: 'stalling mid-body',
    tuning: { timeoutMs: TIMEOUT },
    handler: (_q, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '5000' });
      res.write('{"data":[');
    },
    status: 504,
    code: 'upstream/timeout',
    upstreamCalls: 1,
    backend: [200, 'timeout'],
    attempts: ['timeout'],
  },
  {
    name: '500',
    handler: (_q, res) => sendJson(res, { error: 'boom' }, 500),
    status: 502,
    code: 'upstream/unavailable',
    upstreamCalls: 1,
    backend: [500, '5xx'],
    attempts: ['5xx'],
    log: ['warn', 'upstream answered 500'],
  },
  {
    name: '500 with Retry-After (only 503 and 429 ask to back off)',
    handler: (_q, res) => sendJson(res, {}, 500, { 'Retry-After': '7' }),
    status: 502,
    code: 'upstream/unavailable',
    headers: { 'retry-after': null },
    upstreamCalls: 1,
  },
  {
    name: '502 (retried once)',
    handler: (_q, res) => sendJson(res, 'bad gateway', 502),
    status: 502,
    code: 'upstream/unavailable',
    upstreamCalls: 2,
    backend: [502, '5xx'],
    attempts: ['5xx', '5xx'],
    log: ['warn', 'upstream answered 502'],
  },
  {
    name: '503 without Retry-After (retried once)',
    handler: (_q, res) => sendJson(res, {}, 503),
    status: 502,
    code: 'upstream/unavailable',
    upstreamCalls: 2,
    backend: [503, '5xx'],
    attempts: ['5xx', '5xx'],
  },
  {
    name: '503 with Retry-After',
    handler: (_q, res) => sendJson(res, {}, 503, { 'Retry-After': '7' }),
    status: 503,
    code: 'upstream/backOff',
    headers: { 'retry-after': '7' },
    upstreamCalls: 1,
    detail: 'The upstream service asks to retry in 7 s.',
    backend: [503, '5xx'],
    attempts: ['5xx'],
    log: ['warn', 'upstream asked to back off (503, Retry-After 7)'],
  },
  {
    name: '503 with Retry-After as an HTTP-date, 30 s after the gateway clock',
    handler: (_q, res) => sendJson(res, {}, 503, { 'Retry-After': 'Sat, 21 Nov 2026 12:00:30 GMT' }),
    status: 503,
    code: 'upstream/backOff',
    headers: { 'retry-after': '30' },
    upstreamCalls: 1,
  },
  {
    name: '429 with Retry-After (the gateway itself is throttled)',
    handler: (_q, res) => sendJson(res, {}, 429, { 'Retry-After': '30' }),
    status: 503,
    code: 'upstream/backOff',
    headers: { 'retry-after': '30' },
    upstreamCalls: 1,
    backend: [429, 'invalid'],
    attempts: ['invalid'],
    log: ['warn', 'upstream asked to back off (429, Retry-After 30)'],
  },
  {
    name: 'malformed JSON',
    handler: (_q, res) => sendJson(res, '{"data": [', 200),
    status: 502,
    code: 'upstream/unavailable',
    upstreamCalls: 1,
    backend: [200, 'invalid'],
    attempts: ['invalid'],
  },
  {
    name: 'a body announced larger than 8 MiB (refused unread)',
    handler: (_q, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(MAX_BODY_BYTES + 1) });
      res.write('{"data":[');
    },
    status: 502,
    code: 'upstream/unavailable',
    upstreamCalls: 1,
    ...malformed(`body larger than ${MAX_BODY_BYTES} bytes`),
    tuning: BIG_BODY_TUNING,
  },
  {
    name: 'a body streamed past 8 MiB without a length',
    handler: (_q, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(padded(fakePage(), MAX_BODY_BYTES + 1));
    },
    status: 502,
    code: 'upstream/unavailable',
    upstreamCalls: 1,
    ...malformed(`body larger than ${MAX_BODY_BYTES} bytes`),
    tuning: BIG_BODY_TUNING,
  },
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
  {
    name: 'a socket destroyed before any answer',
    handler: (req) => req.socket.destroy(),
    status: 502,
    code: 'upstream/unavailable',
    upstreamCalls: 2,
    backend: [null, 'refused'],
    attempts: ['refused', 'refused'],
    log: ['warn', 'upstream connection failed: socket hang up'],
  },
  {
    name: 'a wrong envelope (no data array)',
    handler: (_q, res) => sendJson(res, { items: [], total: 0 }),
    status: 502,
    code: 'upstream/unavailable',
    upstreamCalls: 1,
    ...malformed('body is not a {data: [], meta: {}} envelope'),
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
    ...malformed('data.id is not the requested id'),
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
    backend: [301, 'invalid'],
    attempts: ['invalid'],
    log: ['error', 'upstream answered an unexpected 301'],
  },
  {
    name: 'a 204 without a body',
    handler: (_q, res) => {
      res.writeHead(204);
      res.end();
    },
    status: 502,
    code: 'upstream/unavailable',
    upstreamCalls: 1,
    backend: [204, 'invalid'],
    log: ['error', 'upstream answered an unexpected 204'],
  },
  {
    name: "401 to the gateway's own credential",
    handler: (_q, res) => sendJson(res, {}, 401),
    status: 502,
    code: 'upstream/unavailable',
    upstreamCalls: 1,
    backend: [401, 'invalid'],
    attempts: ['invalid'],
    log: ['error', "upstream refused the gateway's own credential (401): check UPSTREAM_AUTHORIZATION"],
  },
  {
    name: "403 to the gateway's own credential",
    handler: (_q, res) => sendJson(res, {}, 403),
    status: 502,
    code: 'upstream/unavailable',
    upstreamCalls: 1,
    log: ['error', "upstream refused the gateway's own credential (403): check UPSTREAM_AUTHORIZATION"],
  },
  {
    name: '400 (the upstream disagrees about the query)',
    handler: (_q, res) => sendJson(res, {}, 400),
    status: 502,
    code: 'upstream/unavailable',
    upstreamCalls: 1,
    log: ['error', 'upstream answered an unexpected 400'],
  },
  {
    name: 'a 404 on page 1 of a collection (wrong UPSTREAM_URL)',
    handler: (_q, res) => sendJson(res, {}, 404),
    status: 502,
    code: 'upstream/unavailable',
    upstreamCalls: 1,
    backend: [404, 'ok'],
    attempts: ['ok'],
    log: ['error', 'upstream answers 404 for /v2/species: check UPSTREAM_URL'],
  },
];

describe('upstream faults become problems, within the timeout', () => {
  it.each(CASES)('$name -> $status $code', async (c) => {
    const upstream = await fake(c.handler);
    const gateway = upstreamGateway(upstream.url, { tuning: c.tuning });
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
    const detail = c.detail ?? (c.code === 'upstream/unavailable' ? 'The upstream service could not answer; try again later.' : undefined);
    if (detail) expect(body.detail).toBe(detail);
    const access = gateway.accessLine(0);
    expect(access.backend, JSON.stringify(access)).toBe('upstream');
    if (c.backend) expect([access.backend_status, access.backend_outcome], JSON.stringify(access)).toEqual(c.backend);
    expect(access.backend_duration_ms as number, 'the backend time is part of the request time').toBeLessThanOrEqual(access.duration_ms as number);
    if (c.attempts) expect(gateway.upstreamMetrics.calls.map((a) => [a.backend, a.outcome])).toEqual(c.attempts.map((o) => ['upstream', o]));
    if (c.log) {
      const [line] = gateway.upstreamLogs;
      expect([line?.level, line?.message], JSON.stringify(gateway.upstreamLogs)).toEqual(c.log);
      expect(line).toMatchObject({ request_id: res.headers.get('svc-request-id'), trace_id: access.trace_id });
    }
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

  it('a body of exactly 8 MiB, announced or not, sent in pieces, is read whole', async () => {
    const upstream = await fake((req, res) => {
      const page = pageOf(req);
      const body = padded(fakePage(page), MAX_BODY_BYTES);
      // Page 1 announces its length; page 2 comes chunked.
      res.writeHead(200, { 'Content-Type': 'application/json', ...(page === 1 ? { 'Content-Length': String(MAX_BODY_BYTES) } : {}) });
      res.write(body.slice(0, 1000));
      res.end(body.slice(1000));
    });
    const gateway = upstreamGateway(upstream.url, { tuning: BIG_BODY_TUNING });
    expect((await json(await gateway.get('/v2/species'))).data).toEqual(fakePage(1).data);
    expect((await json(await gateway.get('/v2/species?page=2'))).data).toEqual(fakePage(2).data);
    expect(gateway.upstreamLogs).toEqual([]);
  });

  it('an upstream 404 on a page its own page 1 says exists is a plain 404', async () => {
    const upstream = await fake((req, res) => (pageOf(req) === 1 ? sendJson(res, fakePage(1, 45)) : sendJson(res, {}, 404)));
    const gateway = upstreamGateway(upstream.url);
    for (const page of [2, 3]) {
      const body = await json(await gateway.get(`/v2/species?page=${page}`));
      expect([body.status, body.code, body.detail]).toEqual([404, 'svc/notFound', `Page ${page} is not available.`]);
    }
    expect(upstream.seen.map((s) => s.url)).toEqual(['/v2/species?page=2', '/v2/species', '/v2/species?page=3', '/v2/species']);
  });

  it('an id of . or .. (which a URL would resolve) is not found, without asking the upstream', async () => {
    const upstream = await fake((_q, res) => sendJson(res, fakePage()));
    const gateway = upstreamGateway(upstream.url);
    const ctx = { requestId: 'r1' };
    for (const id of ['.', '..']) {
      expect(await gateway.source.get('species', id, ctx), id).toBeUndefined();
      expect(await gateway.source.list('species', { q: undefined, order: [], page: 1 }, { parent: 'genus', id }, ctx), id).toBeUndefined();
    }
    expect(upstream.seen).toEqual([]);
    expect(await gateway.source.list('species', { q: undefined, order: [], page: 1 }, { parent: 'genus', id: '.a.' }, ctx)).toBeDefined();
    expect(upstream.seen.map((s) => s.url)).toEqual(['/v2/genus/.a./species']);
  });

  it('a 404 on page 1 for a read outside any request (no trace) is still the 502 that names UPSTREAM_URL', async () => {
    const upstream = await fake((_q, res) => sendJson(res, {}, 404));
    const gateway = upstreamGateway(upstream.url);
    await expect(gateway.source.list('species', { q: undefined, order: [], page: 1 }, undefined, { requestId: 'r1' })).rejects.toMatchObject({
      code: 'upstream/unavailable',
    });
    expect(gateway.upstreamLogs).toEqual([
      { level: 'error', message: 'upstream answers 404 for /v2/species: check UPSTREAM_URL', request_id: 'r1', trace_id: undefined },
    ]);
  });
});
