/**
 * The Node gateway's HTTP client for its backends (src/node/backend-fetch.ts, docs/reference/operations.md),
 * in process against loopback backends: a gateway in upstream mode sends exactly the headers
 * docs/upstream.md lists for Node, whatever its caller sent; the client itself sends the caller's
 * headers and nothing of its own but `Host` and `Connection: keep-alive`, pools connections,
 * follows no redirect, gives the response as fetch's `Response` (repeated headers kept, no body
 * for HEAD, 204 and 304), and refuses what it does not do (a body, a `Request`, another scheme).
 * backend-headers.test.ts checks the same table on real gateway processes.
 */
import { describe, expect, it } from 'vitest';
import { nodeBackendFetch } from '../../../src/node/backend-fetch';
import { DEMO } from '../../support/harness';
import { closedPort, documentedBackendHeaders, fakePage, fakesClosedAfterEach, pageOf, sendJson, upstreamGateway } from '../../support/upstream';

const backend = fakesClosedAfterEach();

describe('what a backend receives', () => {
  it('from a gateway in upstream mode: exactly the documented headers, whatever the caller sent', async () => {
    const upstream = await backend((req, res) => sendJson(res, fakePage(pageOf(req))));
    const gateway = upstreamGateway(upstream.url, { authorization: 'ApiKey gateway-own' });
    const res = await gateway.get('/v2/species?q=headers', {
      Authorization: DEMO.key,
      'Accept-Language': 'de',
      'Accept-Encoding': 'br',
      Cookie: 'a=b',
      'Sec-Fetch-Mode': 'navigate',
    });
    expect(res.status, await res.text()).toBe(200);
    expect(upstream.seen.length).toBeGreaterThan(0);
    for (const call of upstream.seen) {
      expect(Object.keys(call.headers).sort(), JSON.stringify(call.headers)).toEqual(documentedBackendHeaders());
      expect(call.headers).toMatchObject({
        accept: 'application/json',
        authorization: 'ApiKey gateway-own',
        'user-agent': 'botanical-gateway',
        connection: 'keep-alive',
        host: new URL(upstream.url).host,
      });
    }
  });

  it('from the client: the headers given, in any of fetch’s forms, and only Host and Connection besides', async () => {
    const upstream = await backend((_req, res) => void res.end());
    const fetchFromBackend = nodeBackendFetch();
    await fetchFromBackend(`${upstream.url}/a`, { headers: { Accept: 'application/json', 'X-One': '1' } });
    await fetchFromBackend(new URL(`${upstream.url}/b`), { headers: new Headers({ 'X-Two': '2' }) });
    await fetchFromBackend(`${upstream.url}/c`, { headers: [['X-Three', '3']] });
    await fetchFromBackend(`${upstream.url}/d`);
    expect(upstream.seen.map((s) => [s.method, s.url, s.headers])).toEqual([
      ['GET', '/a', { accept: 'application/json', 'x-one': '1', host: new URL(upstream.url).host, connection: 'keep-alive' }],
      ['GET', '/b', { 'x-two': '2', host: new URL(upstream.url).host, connection: 'keep-alive' }],
      ['GET', '/c', { 'x-three': '3', host: new URL(upstream.url).host, connection: 'keep-alive' }],
      ['GET', '/d', { host: new URL(upstream.url).host, connection: 'keep-alive' }],
    ]);
  });

  it('over one pooled connection for calls one after another', async () => {
    const ports: number[] = [];
    const upstream = await backend((req, res) => {
      ports.push(req.socket.remotePort!);
      res.end('ok');
    });
    const fetchFromBackend = nodeBackendFetch();
    for (let i = 0; i < 3; i++) expect(await (await fetchFromBackend(`${upstream.url}/n${i}`)).text()).toBe('ok');
    expect(new Set(ports).size).toBe(1);
  });
});

describe('what the caller gets', () => {
  it('the status, its text, every header (repeated ones too) and the body as it streams', async () => {
    const upstream = await backend((_req, res) => {
      res.writeHead(418, "I'm a teapot", [
        ['Content-Type', 'application/json'],
        ['Set-Cookie', 'a=1'],
        ['Set-Cookie', 'b=2'],
        ['X-Backend', 'yes'],
      ]);
      res.write('{"chunks":');
      res.end('2}');
    });
    const res = await nodeBackendFetch()(`${upstream.url}/x`);
    expect(res.status).toBe(418);
    expect(res.statusText).toBe("I'm a teapot");
    expect(res.headers.get('x-backend')).toBe('yes');
    expect(res.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await res.json()).toEqual({ chunks: 2 });
  });

  it('a redirect as it is: none is followed', async () => {
    const upstream = await backend((req, res) => {
      if (req.url === '/moved') res.writeHead(302, { Location: '/elsewhere' }).end();
      else res.end('followed');
    });
    const res = await nodeBackendFetch()(`${upstream.url}/moved`);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/elsewhere');
    expect(upstream.seen.map((s) => s.url)).toEqual(['/moved']);
  });

  it('no body for HEAD, 204 and 304, and the connection still serves the next call', async () => {
    const ports: number[] = [];
    const upstream = await backend((req, res) => {
      ports.push(req.socket.remotePort!);
      if (req.url === '/204') res.writeHead(204).end();
      else if (req.url === '/304') res.writeHead(304, { ETag: '"e"' }).end();
      else res.writeHead(200, { 'Content-Length': '5' }).end(req.method === 'HEAD' ? undefined : 'hello');
    });
    const fetchFromBackend = nodeBackendFetch();
    const head = await fetchFromBackend(`${upstream.url}/h`, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-length'), head.body]).toEqual([200, '5', null]);
    const empty = await fetchFromBackend(`${upstream.url}/204`);
    expect([empty.status, empty.body]).toEqual([204, null]);
    const unchanged = await fetchFromBackend(`${upstream.url}/304`);
    expect([unchanged.status, unchanged.headers.get('etag'), unchanged.body]).toEqual([304, '"e"', null]);
    expect(await (await fetchFromBackend(`${upstream.url}/after`)).text()).toBe('hello');
    expect(upstream.seen.map((s) => [s.method, s.url])).toEqual([
      ['HEAD', '/h'],
      ['GET', '/204'],
      ['GET', '/304'],
      ['GET', '/after'],
    ]);
    // A response without a body is read to its end, so its connection goes back to the pool (a
    // moment after the answer is taken: the next call may open a second one, never more). Kept
    // from the pool, each of the four would have had a connection of its own.
    expect(new Set(ports).size, JSON.stringify(ports)).toBeLessThanOrEqual(2);
  });

  it('a rejection when nothing listens', async () => {
    await expect(nodeBackendFetch()(`${await closedPort()}/x`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('a rejection when its signal aborts before the answer', async () => {
    const controller = new AbortController();
    const upstream = await backend(() => controller.abort(new Error('deadline')));
    await expect(nodeBackendFetch()(`${upstream.url}/slow`, { signal: controller.signal })).rejects.toThrow();
    expect(upstream.seen).toHaveLength(1);
  });

  it('a TypeError for what it does not do: a Request, a body, another scheme', async () => {
    const fetchFromBackend = nodeBackendFetch();
    await expect(fetchFromBackend(new Request('http://127.0.0.1:1/'))).rejects.toThrow(new TypeError('nodeBackendFetch takes a URL, not a Request'));
    await expect(fetchFromBackend('http://127.0.0.1:1/', { method: 'POST', body: 'x' })).rejects.toThrow(
      new TypeError('nodeBackendFetch sends no request body'),
    );
    await expect(fetchFromBackend('ftp://127.0.0.1/')).rejects.toThrow(new TypeError('nodeBackendFetch: ftp: URLs are not supported'));
  });
});
