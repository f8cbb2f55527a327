/**
 * The answers to requests Node's HTTP layer refuses before the app sees them
 * (src/node/rejections.ts, docs/reference/requests.md), in process: the problem+json body, its headers
 * (request id, `no-store`, `Connection: close`, the length), the bytes written to a socket no
 * response owns, and the one access-log line each (path without its query, method cut short,
 * `rejected` naming why), with the refusal counted. hostile-http.test.ts sends such requests over
 * loopback; this file checks what each refusal carries.
 */
import { describe, expect, it } from 'vitest';
import { logAborted, rawResponse, rejection, type RejectionDeps } from '../../../src/node/rejections';
import { ManualClock } from '../../../src/services/clock';
import type { LogLine } from '../../../src/services/log';

const NOW = '2026-11-21T12:00:00.000Z';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Rejection deps with a stopped clock, the log and the counted statuses kept. */
function deps(): RejectionDeps & { lines: LogLine[]; counted: number[] } {
  const lines: LogLine[] = [];
  const counted: number[] = [];
  return {
    config: { docsUrl: 'https://docs.example.org', serviceName: 'botanical' },
    clock: new ManualClock(Date.parse(NOW)),
    log: (line) => lines.push(line),
    metrics: { httpRejection: (status) => counted.push(status) },
    lines,
    counted,
  };
}

describe('a refused request', () => {
  it('is answered with problem+json, a request id, no-store, Connection: close and its length', () => {
    const d = deps();
    const r = rejection(d, 'svc/requestTimeout', 'The request head did not arrive in time.', { reason: 'ERR_HTTP_REQUEST_TIMEOUT' });
    expect(r.status).toBe(408);
    const id = r.headers['Svc-Request-Id']!;
    expect(id).toMatch(UUID);
    expect(r.headers).toEqual({
      'Content-Type': 'application/problem+json',
      'Cache-Control': 'no-store',
      'Content-Length': String(Buffer.byteLength(r.body)),
      'Svc-Request-Id': id,
      Date: 'Sat, 21 Nov 2026 12:00:00 GMT',
      Connection: 'close',
    });
    expect(JSON.parse(r.body)).toEqual({
      type: 'https://docs.example.org/problems/request-timeout',
      title: 'Request not received in time',
      status: 408,
      code: 'svc/requestTimeout',
      detail: 'The request head did not arrive in time.',
      instance: `urn:botanical:request:${id}`,
    });
    expect(d.counted).toEqual([408]);
  });

  it('carries the headers its error asks for, and a length in bytes', () => {
    const r = rejection(deps(), 'svc/methodNotAllowed', 'Méthode refusée ✗', { reason: 'CONNECT', method: 'CONNECT', headers: { Allow: 'GET, HEAD' } });
    expect(r.status).toBe(405);
    expect(r.headers.Allow).toBe('GET, HEAD');
    expect(Number(r.headers['Content-Length'])).toBe(new TextEncoder().encode(r.body).length);
    expect(Number(r.headers['Content-Length'])).toBeGreaterThan(r.body.length);
  });

  it('is logged as one access line with the same request id, the path without its query, and why it was refused', () => {
    const d = deps();
    const r = rejection(d, 'svc/headersTooLarge', 'Too large.', {
      reason: 'HPE_HEADER_OVERFLOW',
      method: 'GET',
      target: '/v2/species?api_key=secret&q=abies',
    });
    expect(d.lines).toHaveLength(1);
    const line = d.lines[0]!;
    expect(line).toEqual({
      time: NOW,
      request_id: r.headers['Svc-Request-Id'],
      trace_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      method: 'GET',
      path: '/v2/species',
      version: null,
      route: null,
      status: 431,
      duration_ms: null,
      subject: null,
      credential: null,
      rejected: 'HPE_HEADER_OVERFLOW',
    });
    expect(JSON.stringify(d.lines)).not.toContain('secret');
  });

  it.each([
    [undefined, null],
    ['*', '*'],
    ['/a/b?c=d', '/a/b'],
    ['http://user:password@gateway.example/v2/genus?key=k', '/v2/genus'],
    ['HTTPS://gateway.example/x', '/x'],
    ['gateway.example:443', null],
    ['http://gateway.example', null],
    [`/${'p'.repeat(300)}`, `/${'p'.repeat(199)}`],
  ])('logs target %s as path %s, never a query or user info', (target, path) => {
    const d = deps();
    rejection(d, 'svc/malformedRequest', 'Bad.', { reason: 'HPE_INVALID_URL', target });
    expect(d.lines[0]?.path).toBe(path);
  });

  it('logs an invented method cut to 20 characters, and none when unknown', () => {
    const d = deps();
    rejection(d, 'svc/notImplemented', 'No.', { reason: 'method', method: 'X'.repeat(40) });
    rejection(d, 'svc/malformedRequest', 'Bad.', { reason: 'HPE_INVALID_METHOD' });
    expect(d.lines.map((l) => l.method)).toEqual(['X'.repeat(20), null]);
  });

  it('gives each refusal a request id and trace of its own', () => {
    const d = deps();
    const a = rejection(d, 'svc/malformedRequest', 'Bad.', { reason: 'x' });
    const b = rejection(d, 'svc/malformedRequest', 'Bad.', { reason: 'x' });
    expect(a.headers['Svc-Request-Id']).not.toBe(b.headers['Svc-Request-Id']);
    expect(d.lines[0]?.trace_id).not.toBe(d.lines[1]?.trace_id);
  });

  it('is counted only when there are metrics', () => {
    const { metrics: _, ...without } = deps();
    expect(rejection(without, 'svc/malformedRequest', 'Bad.', { reason: 'x' }).status).toBe(400);
  });
});

describe('a refusal written to a socket', () => {
  it('is an HTTP/1.1 status line, each header on its own line, a blank line, then the body', () => {
    const text = rawResponse({ status: 400, headers: { 'Content-Type': 'application/problem+json', 'Content-Length': '2' }, body: '{}' });
    expect(text).toBe('HTTP/1.1 400 Bad Request\r\nContent-Type: application/problem+json\r\nContent-Length: 2\r\n\r\n{}');
  });

  it('parses back as the rejection it was made from', () => {
    const r = rejection(deps(), 'svc/headersTooLarge', 'Too large.', { reason: 'HPE_HEADER_OVERFLOW' });
    const [head, body] = rawResponse(r).split('\r\n\r\n');
    const [status, ...headers] = head!.split('\r\n');
    expect(status).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(Object.fromEntries(headers.map((h) => h.split(': ') as [string, string]))).toEqual(r.headers);
    expect(body).toBe(r.body);
  });
});

describe('a client that left while its head was arriving', () => {
  it('is logged as aborted, with no status, and never counted', () => {
    const d = deps();
    logAborted(d, { reason: 'ECONNRESET', method: 'GET', target: '/v2/plants?token=t' });
    expect(d.lines).toEqual([
      {
        time: NOW,
        request_id: expect.stringMatching(UUID),
        trace_id: expect.stringMatching(/^[0-9a-f]{32}$/),
        method: 'GET',
        path: '/v2/plants',
        version: null,
        route: null,
        level: 'info',
        aborted: true,
        status: null,
        duration_ms: null,
        subject: null,
        credential: null,
        rejected: 'ECONNRESET',
      },
    ]);
    expect(d.counted).toEqual([]);
  });
});
