/**
 * The Node entry's header reader against Fetch's `Headers.get`, over real HTTP on loopback with
 * raw requests: the reference is a `Headers` built from every raw header line, as the spec
 * builds it, so what Node's parser folds, drops or trims differently is seen.
 */
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeHeader } from '../../../src/node/request-header';
import { exchange } from '../../support/raw-http';

let server: Server;
let port: number;

beforeAll(async () => {
  const app = new Hono();
  app.get('/:name', (c) => {
    const name = c.req.param('name') as Lowercase<string>;
    // Read first, before anything has asked the adapter's `Headers`.
    const read = nodeHeader(c, name);
    const raw = (c.env as { incoming: { rawHeaders: string[] } }).incoming.rawHeaders;
    const reference = new Headers();
    for (let i = 0; i < raw.length; i += 2) reference.append(raw[i]!, raw[i + 1]!);
    return c.json({ read: read ?? 'absent', fetch: reference.get(name) ?? 'absent' });
  });
  server = createServer(getRequestListener(app.fetch));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function read(name: string, lines: string[]): Promise<{ read: string; fetch: string }> {
  const answer = await exchange(port, [`GET /${name} HTTP/1.1\r\nHost: localhost\r\n${lines.map((l) => `${l}\r\n`).join('')}Connection: close\r\n\r\n`]);
  expect(answer.status).toBe(200);
  return JSON.parse(answer.body) as { read: string; fetch: string };
}

describe('nodeHeader', () => {
  it.each([
    ['one value', 'x-a', ['X-A: one'], 'one'],
    ['a repeated header, joined', 'x-a', ['X-A: one', 'x-a: two'], 'one, two'],
    [
      'a repeated Authorization, which Node keeps only the first of',
      'authorization',
      ['Authorization: ApiKey a', 'authorization: ApiKey b'],
      'ApiKey a, ApiKey b',
    ],
    ['a repeated User-Agent', 'user-agent', ['User-Agent: a', 'User-Agent: b'], 'a, b'],
    ['one Authorization', 'authorization', ['Authorization: ApiKey demo-project-key'], 'ApiKey demo-project-key'],
    ['spaces around the value', 'user-agent', ['User-Agent:   spaced out  '], 'spaced out'],
    ['a tab inside the value', 'x-a', ['X-A: a\tb'], 'a\tb'],
    ['an empty value', 'x-a', ['X-A:'], ''],
    ['an absent header', 'x-api-key', ['X-A: one'], 'absent'],
    ['a name in another case', 'x-key', ['X-KEY: k'], 'k'],
  ])('%s: as Fetch gives it', async (_what, name, lines, expected) => {
    const { read: got, fetch } = await read(name, lines);
    expect(fetch, 'the reference').toBe(expected);
    expect(got).toBe(expected);
  });

  it('asks the request itself where the request did not come from Node (app.request, tests)', async () => {
    const app = new Hono();
    app.get('/', (c) => c.text(nodeHeader(c, 'x-a') ?? 'absent'));
    expect(await (await app.request('/', { headers: { 'X-A': 'from fetch' } })).text()).toBe('from fetch');
    expect(await (await app.request('/')).text()).toBe('absent');
  });
});
