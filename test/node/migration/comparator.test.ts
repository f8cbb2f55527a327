/**
 * The migration controls (docs/reference/migration.md) piece by piece, over the compiled dataset on disk
 * and a legacy backend on loopback that answers what the facade answers unless a test says
 * otherwise: how a comparison is logged, how the legacy client reads and refuses the backend's
 * answers, who answers v1 callers, the facade's shadow answer, and the cap on comparisons in flight.
 * (`legacy-answer.test.ts` runs the whole v1 suite in legacy mode; this file is the fast, pointed
 * one.)
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config';
import type { LogLine } from '../../../src/services/log';
import { ApiError } from '../../../src/core/api-error';
import { compareInBackground, type Comparison } from '../../../src/migration/comparator';
import { createLegacyClient, LegacyClient } from '../../../src/migration/legacy-client';
import { sampled } from '../../../src/migration/sampling';
import { systemClock } from '../../../src/services/clock';
import { noMetrics } from '../../../src/services/metrics';
import { diskApp, type TestApp } from '../../support/gateway';
import { DEMO, json } from '../../support/harness';
import { closedPort } from '../../support/upstream';

const BACKEND_SECRET = 'Bearer the-gateway-own-legacy-secret';

/** What the backend does with one request: `undefined` lets the facade's answer through. */
type Answer = (url: string, res: ServerResponse) => boolean | undefined;

interface Backend {
  url: string;
  seen: { url: string; headers: IncomingHttpHeaders }[];
  answer: Answer | undefined;
  /** Requests waiting for `release` (while `holding`). */
  held: (() => void)[];
  holding: boolean;
}

let facade: TestApp;
let server: Server;
const backend: Backend = { url: '', seen: [], answer: undefined, held: [], holding: false };

/** The facade's answer to `/v1<target>`, as the legacy backend would send it: its links under the backend's base. */
async function facadeAnswer(target: string, res: ServerResponse): Promise<void> {
  const answer = await facade.get(`/v1${target}`, { Authorization: DEMO.key });
  const text = (await answer.text()).replaceAll('"/v1/', '"/api/v1/');
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  const modified = answer.headers.get('Last-Modified');
  if (modified) headers['Last-Modified'] = modified;
  res.writeHead(answer.status, headers);
  res.end(text);
}

beforeAll(async () => {
  facade = diskApp();
  server = createServer((req, res) => {
    backend.seen.push({ url: req.url!, headers: req.headers });
    const go = () => {
      if (backend.answer?.(req.url!, res)) return;
      void facadeAnswer(req.url!.slice('/api/v1'.length), res);
    };
    if (backend.holding) backend.held.push(go);
    else go();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  backend.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
beforeEach(() => {
  backend.seen.length = 0;
  backend.answer = undefined;
  backend.holding = false;
});

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): true {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(body);
  return true;
}

/** A gateway steering v1 with these settings; its comparisons run when `settled()` is awaited. */
function steered(env: Record<string, string>) {
  const tasks: (() => Promise<void>)[] = [];
  const running: Promise<void>[] = [];
  const app = diskApp({
    env: { LEGACY_V1_URL: backend.url, LEGACY_V1_AUTHORIZATION: BACKEND_SECRET, UPSTREAM_TIMEOUT_MS: '2000', ...env },
    services: { afterResponse: (_c, task) => void tasks.push(task) },
  });
  return {
    ...app,
    /** Starts every comparison waiting, without waiting for them. */
    start: () => {
      for (const task of tasks.splice(0)) running.push(task());
    },
    async settled() {
      while (tasks.length > 0 || running.length > 0) {
        for (const task of tasks.splice(0)) running.push(task());
        await Promise.all(running.splice(0));
      }
    },
    lines: (message: string) => app.logs.filter((l) => l.message === message),
    accessLines: () => app.logs.filter((l) => l.route !== undefined && l.message === undefined),
  };
}

describe('a comparison', () => {
  const about = { requestId: 'r-1', traceId: 't-1', subject: 'project:demo', route: 'GET /species/{id}', path: '/v1/species/ABBA' };
  /** What every line of a comparison the facade answered says of its request. */
  const aboutLine = {
    request_id: about.requestId,
    trace_id: about.traceId,
    subject: about.subject,
    route: about.route,
    path: about.path,
    answered_by: 'facade',
  };
  const run = (answeredBy: Comparison['answeredBy'], answered: unknown, other: unknown, ignore: string[] = []) => {
    const lines: LogLine[] = [];
    const side = (v: unknown) => () => (v instanceof Error ? Promise.reject(v) : Promise.resolve({ status: 200, body: v }));
    return compareInBackground({ ...about, answeredBy, answered: side(answered), other: side(other) }, ignore, (l) => lines.push(l)).then((result) => ({
      result,
      lines,
    }));
  };

  it('logs one parity line per JSON path that differs, with how often, then the comparison line', async () => {
    const facadeBody = {
      data: [
        { id: 'A', rank: 'SPECIES' },
        { id: 'B', rank: 'SPECIES' },
        { id: 'C', rank: 'GENUS' },
      ],
      meta: { total: 3 },
    };
    const legacyBody = {
      data: [
        { id: 'A', rank: 'species' },
        { id: 'B', rank: 'species' },
        { id: 'C', rank: 'GENUS' },
      ],
      meta: { total: 3 },
    };
    const { result, lines } = await run('facade', facadeBody, legacyBody);
    expect(result).toBe('different');
    expect(lines).toEqual([
      {
        level: 'warn',
        message: 'v1 parity',
        ...aboutLine,
        json_path: 'data[].rank',
        at: 'data[0].rank',
        kind: 'value',
        occurrences: 2,
        facade: 'SPECIES',
        legacy: 'species',
      },
      {
        level: 'info',
        message: 'v1 comparison',
        ...aboutLine,
        matched: false,
        differences: 1,
      },
    ]);
  });

  it('puts each side where it belongs when the legacy backend answered the caller', async () => {
    const { lines } = await run('legacy', { rank: 'species' }, { rank: 'SPECIES' });
    expect(lines[0]).toMatchObject({ answered_by: 'legacy', facade: 'SPECIES', legacy: 'species' });
  });

  it('says the answers matched when they do, and skips ignored paths', async () => {
    const same = await run('facade', { a: 1, b: [1, 2] }, { b: [1, 2], a: 1 });
    expect(same.result).toBe('same');
    expect(same.lines).toEqual([expect.objectContaining({ message: 'v1 comparison', matched: true, differences: 0 })]);
    const ignored = await run('facade', { a: 1, common_name: 'x' }, { a: 1, common_name: 'y' }, ['common_name']);
    expect(ignored.result).toBe('same');
  });

  it('shows a long value cut at 200 characters of its JSON, and a missing one as absent', async () => {
    const exactly = 'x'.repeat(198); // 200 characters as JSON, quotes included
    const longer = 'y'.repeat(199);
    const { lines } = await run('facade', { a: exactly, b: longer, c: 1 }, { a: 'z', b: 'z' });
    const byPath = Object.fromEntries(lines.filter((l) => l.message === 'v1 parity').map((l) => [l.json_path, l]));
    expect(byPath.a!.facade).toBe(exactly);
    expect(byPath.b!.facade).toBe(`${JSON.stringify(longer).slice(0, 200)}…`);
    expect(byPath.c!.legacy).toBe('(absent)');
  });

  it('never throws: a failure while reporting is logged as the comparison failing', async () => {
    const lines: LogLine[] = [];
    const log = (line: LogLine) => {
      if (line.message === 'v1 parity') throw new Error('the log sink is full');
      lines.push(line);
    };
    const side = (body: unknown) => () => Promise.resolve({ status: 200, body });
    const result = await compareInBackground({ ...about, answeredBy: 'facade', answered: side({ a: 1 }), other: side({ a: 2 }) }, [], log);
    expect(result).toBe('not_made');
    expect(lines).toEqual([
      {
        level: 'error',
        message: 'v1 comparison failed',
        ...aboutLine,
        error: 'the log sink is full',
      },
    ]);
  });

  it('that could not be made says why, with the error code when there is one', async () => {
    const coded = Object.assign(new Error('the legacy backend timed out'), { code: 'upstream/timeout' });
    const withCode = await run('facade', { a: 1 }, coded);
    expect(withCode.result).toBe('not_made');
    expect(withCode.lines).toEqual([
      {
        level: 'warn',
        message: 'v1 comparison not made',
        ...aboutLine,
        reason: 'the legacy backend timed out',
        code: 'upstream/timeout',
      },
    ]);
    const without = await run('legacy', new Error('gone'), { a: 1 });
    expect(without.lines[0]).toMatchObject({ answered_by: 'legacy', reason: 'gone', code: null });
  });
});

describe('the legacy client', () => {
  let logged: LogLine[] = [];
  beforeEach(() => {
    logged = [];
  });
  const client = (url = backend.url) =>
    createLegacyClient(parseConfig({ TOKEN_SIGNING_SECRET: 's', LEGACY_V1_URL: url, LEGACY_V1_AUTHORIZATION: BACKEND_SECRET, UPSTREAM_RETRIES: '0' }), {
      clock: systemClock,
      log: (line) => logged.push(line),
      metrics: noMetrics,
    })!;

  it('exists only with LEGACY_V1_URL', () => {
    expect(createLegacyClient(parseConfig({ TOKEN_SIGNING_SECRET: 's' }), { clock: systemClock, log: () => {}, metrics: noMetrics })).toBeUndefined();
    expect(client()).toBeInstanceOf(LegacyClient);
  });

  it('asks below LEGACY_V1_URL with its own headers only, and reads the answer and its Last-Modified', async () => {
    const answer = await client().get('/species/ABBA', { requestId: 'req-42' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id: 'ABBA', rank: 'SPECIES' });
    expect(answer.lastModified).toMatch(/ GMT$/);
    expect(backend.seen.map((s) => s.url)).toEqual(['/api/v1/species/ABBA']);
    const headers = backend.seen[0]!.headers;
    expect(headers.authorization).toBe(BACKEND_SECRET);
    expect(headers['svc-request-id']).toBe('req-42');
    expect(headers.accept).toBe('application/json');
  });

  it("passes the backend's own v1 errors through, as answers", async () => {
    backend.answer = (_url, res) => send(res, 404, '{"statusCode":404,"message":"No species record has id \\"X\\"."}');
    const answer = await client().get('/species/X', { requestId: 'r' });
    expect(answer).toEqual({ status: 404, body: { statusCode: 404, message: 'No species record has id "X".' }, lastModified: null });
  });

  it.each([
    ['a status that is not a v1 answer', 500, '{"statusCode":500,"message":"boom"}', {}, 'warn', 'answered 500'],
    [
      'a refusal of its own credential',
      401,
      '{"statusCode":401,"message":"who?"}',
      {},
      'error',
      "refused the gateway's own credential (401): check LEGACY_V1_AUTHORIZATION",
    ],
    ['an error without a v1 message', 404, '{"error":"not found"}', {}, 'error', 'answered 404 with a body that is not a v1 answer'],
    ['a body that is not JSON', 200, '<html>', {}, 'error', 'answered a malformed body: Unexpected token'],
    ['a JSON body that is not an object', 200, '"text"', {}, 'error', 'answered 200 with a body that is not a v1 answer'],
    ['a JSON null', 200, 'null', {}, 'error', 'answered 200 with a body that is not a v1 answer'],
    ['a redirect, which is not followed', 302, '{}', { Location: '/api/v1/species/ABBA?redirected' }, 'error', 'answered an unexpected 302'],
  ])('refuses %s with an upstream error, and logs why under its name', async (_what, status, body, headers, level, why) => {
    // What a redirect points at would answer 200.
    backend.answer = (url, res) => (url.endsWith('?redirected') ? undefined : send(res, status, body, headers));
    const err = await client()
      .get('/species/ABBA', { requestId: 'r' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toMatch(/^upstream\//);
    expect(backend.seen).toHaveLength(1);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level, request_id: 'r', upstream_path: '/species/ABBA' });
    expect(logged[0]!.message).toContain(`legacy v1 backend ${why}`);
  });

  it('is ready when its first species page answers 200, asked once for callers asking together', async () => {
    const c = client();
    const [a, b] = await Promise.all([c.ready({ requestId: 'r' }), c.ready({ requestId: 'r' })]);
    expect(a).toEqual({ ready: true, report: { legacy: { reachable: true, breaker: 'closed' } } });
    expect(b).toBe(a);
    expect(backend.seen.map((s) => s.url)).toEqual(['/api/v1/species']);
    // The next check asks again.
    await c.ready({ requestId: 'r' });
    expect(backend.seen).toHaveLength(2);
  });

  it('is not ready when the probe is refused, or the backend unreachable, and says why', async () => {
    backend.answer = (_url, res) => send(res, 404, '{"statusCode":404,"message":"no such path"}');
    expect(await client().ready({ requestId: 'r' })).toEqual({
      ready: false,
      report: { legacy: { reachable: false, breaker: 'closed', problem: 'answered 404 for /species' } },
    });
    const gone = await client(`${await closedPort()}/api/v1`).ready({ requestId: 'r' });
    expect(gone.ready).toBe(false);
    expect(gone.report.legacy).toMatchObject({ reachable: false, problem: expect.stringMatching(/^upstream\//) });
  });
});

describe('V1_ANSWER=legacy', () => {
  // Made in each test, not once for all, so that a mutation run sees every test use the gateway's set-up.
  let gateway: ReturnType<typeof steered>;
  beforeEach(() => {
    gateway = steered({ V1_ANSWER: 'legacy' });
  });

  it("answers v1 routes with the backend's answer, its links under the caller's base, flagged in the access line", async () => {
    backend.answer = (_url, res) =>
      send(
        res,
        200,
        JSON.stringify({
          data: [],
          links: { self: `${backend.url}/species?page=2`, next: '/api/v1/species?page=3', first: '/api/v1/species?page=1' },
          meta: { total: 0 },
        }),
      );
    const res = await gateway.get('/api/v1/species?page=2&key=demo-project-key', {});
    expect(res.status).toBe(200);
    expect((await json(res)).links).toEqual({ self: '/api/v1/species?page=2', next: '/api/v1/species?page=3', first: '/api/v1/species?page=1' });
    expect(backend.seen.map((s) => s.url)).toEqual(['/api/v1/species?page=2']);
    expect(gateway.logs.at(-1)).toMatchObject({ path: '/api/v1/species?page=2&key=[redacted]', flags: ['answeredByLegacy'] });
  });

  it("gives a legacy detail the facade's strong ETag, its 304 and the backend's Last-Modified", async () => {
    const res = await gateway.get('/v1/species/ABBA');
    expect(res.status).toBe(200);
    const tag = res.headers.get('ETag');
    expect(tag).toMatch(/^"[^"]+"$/);
    expect(res.headers.get('Last-Modified')).toMatch(/ GMT$/);
    const again = await gateway.get('/v1/species/ABBA', { Authorization: DEMO.key, 'If-None-Match': tag! });
    expect(again.status).toBe(304);
  });

  it('gives a refused detail neither ETag nor Last-Modified, and a page no ETag', async () => {
    backend.answer = (_url, res) =>
      send(res, 404, '{"statusCode":404,"message":"No species record has id \\"NOTANID\\"."}', { 'Last-Modified': 'Wed, 18 Mar 2026 00:00:00 GMT' });
    const missing = await gateway.get('/v1/species/NOTANID');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('ETag')).toBeNull();
    expect(missing.headers.get('Last-Modified')).toBeNull();
    backend.answer = undefined;
    const page = await gateway.get('/v1/species');
    expect(page.status).toBe(200);
    expect(page.headers.get('ETag')).toBeNull();
  });

  it('checks access before asking the backend, and answers paths outside the v1 routes itself', async () => {
    const refused = await gateway.get('/v1/genus', { Authorization: DEMO.speciesOnlyKey });
    expect(refused.status).toBe(403);
    const unknown = await gateway.get('/v1/nothing-here');
    expect(unknown.status).toBe(404);
    expect(backend.seen).toEqual([]);
  });

  it("is compared with the facade's own answer, made by the gateway's routes for the same caller", async () => {
    const compared = steered({ V1_ANSWER: 'legacy', V1_COMPARE_PERCENT: '100' });
    const statuses: number[] = [];
    for (const path of ['/v1/species?page=3', '/api/v1/species/ABBA', '/v1/genus/Abies/species', '/v1/species/NOTANID'])
      statuses.push((await compared.get(path)).status);
    // v1 has no enumeration routes: the gateway answers that one itself, and compares nothing.
    expect(statuses).toEqual([200, 200, 404, 404]);
    expect(backend.seen.map((s) => s.url)).toEqual(['/api/v1/species?page=3', '/api/v1/species/ABBA', '/api/v1/species/NOTANID']);
    await compared.settled();
    expect(compared.lines('v1 parity')).toEqual([]);
    const lines = compared.lines('v1 comparison');
    expect(lines.map((l) => [l.path, l.answered_by, l.matched])).toEqual([
      ['/v1/species?page=3', 'legacy', true],
      ['/api/v1/species/ABBA', 'legacy', true],
      ['/v1/species/NOTANID', 'legacy', true],
    ]);
    // The shadow answer passes no policy again: one access line per request.
    expect(compared.accessLines()).toHaveLength(4);
  });
});

describe('V1_ANSWER=facade with comparisons', () => {
  it("answers with the facade and compares with the backend's answer afterwards", async () => {
    const gateway = steered({ V1_COMPARE_PERCENT: '100' });
    backend.answer = (url, res) => (url.includes('page=2') ? send(res, 200, JSON.stringify({ data: [], links: {}, meta: { total: 1 } })) : undefined);
    const res = await gateway.get('/v1/species?page=2');
    expect((await json(res)).meta.total).toBe(32800);
    expect(backend.seen).toEqual([]);
    await gateway.settled();
    expect(backend.seen.map((s) => s.url)).toEqual(['/api/v1/species?page=2']);
    expect(gateway.lines('v1 comparison')).toEqual([expect.objectContaining({ answered_by: 'facade', matched: false })]);
    expect(gateway.lines('v1 parity').map((l) => l.json_path)).toContain('meta.total');
  });

  it('asks the backend nothing when nothing is compared', async () => {
    const gateway = steered({ V1_COMPARE_PERCENT: '0' });
    expect((await gateway.get('/v1/species/ABBA')).status).toBe(200);
    await gateway.settled();
    expect(backend.seen).toEqual([]);
    expect(gateway.lines('v1 comparison')).toEqual([]);
  });

  it.each(['facade', 'legacy'])('compares exactly the requests in the sample (V1_ANSWER=%s)', async (answer) => {
    const gateway = steered({ V1_ANSWER: answer, V1_COMPARE_PERCENT: '50' });
    const ids: string[] = [];
    for (let i = 1; i <= 12; i++) {
      const res = await gateway.get(`/v1/species?page=${i}`);
      expect(res.status).toBe(200);
      ids.push(res.headers.get('Svc-Request-Id')!);
    }
    await gateway.settled();
    // Which ids fall in the sample is the sampler's (sampling.test.ts); here, that the gateway keeps to it.
    const inSample = ids.filter((id) => sampled(id, 50));
    expect(gateway.lines('v1 comparison').map((l) => l.request_id)).toEqual(inSample);
    expect(backend.seen).toHaveLength(answer === 'legacy' ? ids.length : inSample.length);
  });

  it('skips comparisons past 32 in flight, saying so, and makes the rest', async () => {
    const gateway = steered({ V1_COMPARE_PERCENT: '100' });
    for (let i = 1; i <= 33; i++) expect((await gateway.get(`/v1/species?page=${i}`)).status).toBe(200);
    backend.holding = true;
    gateway.start();
    // 32 comparisons wait on the backend; the 33rd is not made.
    await expect.poll(() => backend.held.length, { timeout: 10_000 }).toBe(32);
    const skipped = gateway.lines('v1 comparison not made');
    expect(skipped).toHaveLength(1);
    expect(skipped[0]).toMatchObject({ reason: 'more than 32 comparisons in flight', answered_by: 'facade' });
    backend.holding = false;
    for (const go of backend.held.splice(0)) go();
    await gateway.settled();
    expect(gateway.lines('v1 comparison')).toHaveLength(32);
    // With those done, the next one is made.
    await gateway.get('/v1/species?page=40');
    await gateway.settled();
    expect(gateway.lines('v1 comparison')).toHaveLength(33);
  });
});
