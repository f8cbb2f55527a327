/**
 * The transport policy on its own (src/policies/transport.ts), without the gateway or its dataset:
 * what counts as https for each connection, peer and forwarded scheme, the redirect and the 426 on
 * either side of `HTTPS_REDIRECT_UNTIL`, and the hint for a TLS proxy the gateway does not trust.
 * The gateway-wide cases are in `test/suites/transport.suite.ts` and `transport.test.ts`.
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config';
import type { AppEnv } from '../../../src/env';
import { ApiError } from '../../../src/core/api-error';
import { hostCheck } from '../../../src/policies/host';
import { asMiddleware } from '../../../src/policies/policy';
import { applyPolicyHeaders, respond } from '../../../src/policies/response-headers';
import { transport } from '../../../src/policies/transport';
import { ManualClock } from '../../../src/services/clock';
import type { ConnectionInfo } from '../../../src/services/connection';
import { fetchHeader } from '../../../src/services/request-header';
import { nodeConnection } from '../../../src/node/connection';
import { AFTER_CUTOFF, BEFORE_CUTOFF, CUTOFF, transportSuite } from '../../suites/transport.suite';
import { DEMO, testApp } from '../../support/harness';
import { serveOnLoopback } from '../../support/loopback';

function gateway(options: { connection?: ConnectionInfo; trustProxy?: boolean; now?: string } = {}) {
  const config = parseConfig({ HTTPS_REDIRECT_UNTIL: CUTOFF, ...(options.trustProxy ? { TRUST_PROXY: 'true' } : {}) });
  const clock = new ManualClock(Date.parse(options.now ?? '2026-11-21T12:00:00Z'));
  const logs: Array<Record<string, unknown>> = [];
  const connection = options.connection ?? { tls: false, remoteAddress: '203.0.113.9' };
  const app = new Hono<AppEnv>();
  // What the app does once the policies are done: their headers on a response built without them.
  app.use(async (c, next) => {
    await next();
    applyPolicyHeaders(c);
  });
  app.use(
    asMiddleware(hostCheck(config)),
    asMiddleware(transport(config, { connection: () => connection, header: fetchHeader, clock, log: (line) => logs.push(line) })),
  );
  app.all('*', (c) => respond(c, 'served', 200, {}));
  app.onError((err, c) => {
    if (!(err instanceof ApiError)) throw err;
    return respond(c, JSON.stringify({ code: err.code, detail: err.detail }), err.status, err.headers);
  });
  return { app, clock, logs };
}

describe('what counts as https', () => {
  const rows: Array<{ name: string; connection: ConnectionInfo; url?: string; proto?: string; trustProxy?: boolean; secure: boolean }> = [
    { name: 'TLS, whatever a proxy says', connection: { tls: true, remoteAddress: '203.0.113.9' }, proto: 'http', secure: true },
    { name: 'a loopback peer in 127/8', connection: { tls: false, remoteAddress: '127.200.1.2' }, secure: true },
    { name: 'an IPv4-mapped loopback peer in capitals', connection: { tls: false, remoteAddress: '::FFFF:127.0.0.1' }, secure: true },
    { name: 'a loopback peer with octets of two and three digits', connection: { tls: false, remoteAddress: '127.0.10.200' }, secure: true },
    { name: 'an IPv6 loopback peer', connection: { tls: false, remoteAddress: '::1' }, secure: true },
    { name: 'a peer with 127 inside its address', connection: { tls: false, remoteAddress: '10.127.0.1' }, secure: false },
    { name: 'a peer with more after a loopback address', connection: { tls: false, remoteAddress: '127.0.0.1.5' }, secure: false },
    { name: 'a loopback peer behind a proxy saying http, not trusted', connection: { tls: false, remoteAddress: '127.0.0.1' }, proto: 'http', secure: false },
    {
      name: 'a trusted proxy whose own value, the last, says https',
      connection: { tls: false, remoteAddress: '10.0.0.2' },
      proto: 'http, https',
      trustProxy: true,
      secure: true,
    },
    {
      name: 'a trusted proxy whose own value, the last, says http',
      connection: { tls: false, remoteAddress: '10.0.0.2' },
      proto: 'https, http',
      trustProxy: true,
      secure: false,
    },
    { name: 'a trusted proxy saying HTTPS in capitals', connection: { tls: false, remoteAddress: '10.0.0.2' }, proto: 'HTTPS', trustProxy: true, secure: true },
    // No peer address (Workers): a loopback URL host stands in for the peer (`wrangler dev`).
    { name: 'no peer, localhost', connection: { tls: false }, url: 'http://localhost:8787/v2/species', secure: true },
    { name: 'no peer, a name under .localhost', connection: { tls: false }, url: 'http://api.localhost/v2/species', secure: true },
    { name: 'no peer, 127.0.0.1', connection: { tls: false }, url: 'http://127.0.0.1:8787/v2/species', secure: true },
    { name: 'no peer, [::1]', connection: { tls: false }, url: 'http://[::1]:8787/v2/species', secure: true },
    { name: 'no peer, a name ending in localhost', connection: { tls: false }, url: 'http://notlocalhost/v2/species', secure: false },
    { name: 'no peer, a public name', connection: { tls: false }, url: 'http://api.example.com/v2/species', secure: false },
  ];
  for (const row of rows) {
    it(`${row.name}: ${row.secure ? 'served with HSTS' : '426'}`, async () => {
      const { app } = gateway({ connection: row.connection, trustProxy: row.trustProxy });
      const res = await app.request(row.url ?? 'http://api.example.com/v2/species', { headers: row.proto ? { 'X-Forwarded-Proto': row.proto } : {} });
      expect(res.status, await res.text()).toBe(row.secure ? 200 : 426);
      expect(res.headers.get('Strict-Transport-Security')).toBe(row.secure ? 'max-age=31536000' : null);
    });
  }
});

describe('plain HTTP either side of HTTPS_REDIRECT_UNTIL', () => {
  it('is redirected until the cut-off, 301 for GET and HEAD, 308 otherwise, to the same path and query, kept by nobody', async () => {
    for (const [method, status] of [
      ['GET', 301],
      ['HEAD', 301],
      ['POST', 308],
      ['DELETE', 308],
    ] as const) {
      const { app } = gateway({ now: '2026-08-30T23:59:59.999Z' });
      const res = await app.request('http://api.example.com:8080/v2/species?q=a%20b&key=x', { method });
      expect(res.status, method).toBe(status);
      expect(res.headers.get('Location')).toBe('https://api.example.com:8080/v2/species?q=a%20b&key=x');
      expect(res.headers.get('Cache-Control')).toBe('no-store');
      expect(res.headers.get('Strict-Transport-Security')).toBeNull();
    }
  });

  it('is refused with 426 from the cut-off on, naming the https address', async () => {
    const { app } = gateway({ now: CUTOFF });
    const res = await app.request('http://api.example.com:8080/v2/species?q=oak');
    expect(res.status).toBe(426);
    expect(JSON.parse(await res.text())).toEqual({
      code: 'svc/httpsRequired',
      detail: 'Plain HTTP is no longer served; send the request to https://api.example.com:8080/v2/species.',
    });
    expect(res.headers.get('Upgrade')).toBe('TLS/1.2, HTTP/1.1');
    expect(res.headers.get('Connection')).toBe('Upgrade');
  });

  it.each(['/healthz', '/readyz'])('lets %s through over plain HTTP, without HSTS', async (path) => {
    for (const now of ['2026-05-01T00:00:00Z', CUTOFF]) {
      const { app } = gateway({ now });
      const res = await app.request(`http://10.1.2.3:8787${path}`);
      expect(res.status, now).toBe(200);
      expect(res.headers.get('Strict-Transport-Security')).toBeNull();
    }
  });
});

describe('the hint for a TLS proxy the gateway does not trust', () => {
  const hints = (logs: Array<Record<string, unknown>>) => logs.filter((l) => l.level === 'warn' && String(l.message).includes('TRUST_PROXY=true'));

  it('is logged once a minute at most, on the forwarded https requests only', async () => {
    const { app, clock, logs } = gateway();
    await app.request('http://api.example.com/v2/species', { headers: { 'X-Forwarded-Proto': 'http' } });
    expect(hints(logs)).toEqual([]);
    await app.request('http://api.example.com/v2/species', { headers: { 'X-Forwarded-Proto': 'https' } });
    expect(hints(logs)).toHaveLength(1);
    clock.advance(59_999);
    await app.request('http://api.example.com/v2/species', { headers: { 'X-Forwarded-Proto': 'https' } });
    expect(hints(logs)).toHaveLength(1);
    clock.advance(1);
    await app.request('http://api.example.com/v2/species', { headers: { 'X-Forwarded-Proto': 'https' } });
    expect(hints(logs)).toHaveLength(2);
  });

  it('is not logged for a health check, nor by a gateway that trusts its proxy', async () => {
    const plain = gateway();
    await plain.app.request('http://api.example.com/healthz', { headers: { 'X-Forwarded-Proto': 'https' } });
    expect(hints(plain.logs)).toEqual([]);
    const trusting = gateway({ trustProxy: true });
    await trusting.app.request('http://api.example.com/v2/species', { headers: { 'X-Forwarded-Proto': 'http, https, http' } });
    expect(hints(trusting.logs)).toEqual([]);
    expect(trusting.logs).toEqual([]);
  });
});

transportSuite(({ now, env }) => testApp({ now, env }));

describe('transport: the peer address (Node shows it; the URL host no longer decides)', () => {
  const rows: Array<{ name: string; connection: ConnectionInfo; url?: string; proto?: string; trustProxy?: boolean; secure: boolean }> = [
    { name: 'TLS from anywhere', connection: { tls: true, remoteAddress: '203.0.113.9' }, secure: true },
    { name: 'a direct IPv4 loopback peer', connection: { tls: false, remoteAddress: '127.0.0.1' }, secure: true },
    { name: 'a direct loopback peer anywhere in 127/8', connection: { tls: false, remoteAddress: '127.5.6.7' }, secure: true },
    { name: 'a direct IPv6 loopback peer', connection: { tls: false, remoteAddress: '::1' }, secure: true },
    { name: 'an IPv4-mapped loopback peer', connection: { tls: false, remoteAddress: '::ffff:127.0.0.1' }, secure: true },
    { name: 'a remote peer', connection: { tls: false, remoteAddress: '203.0.113.9' }, secure: false },
    {
      name: 'a remote peer that sends Host: localhost',
      connection: { tls: false, remoteAddress: '203.0.113.9' },
      url: 'http://localhost/v2/species',
      secure: false,
    },
    { name: 'an IPv4-mapped remote peer', connection: { tls: false, remoteAddress: '::ffff:203.0.113.9' }, secure: false },
    { name: 'a peer that only looks like loopback', connection: { tls: false, remoteAddress: '::ffff:128.0.0.1' }, secure: false },
    { name: 'a loopback proxy saying http, trusted', connection: { tls: false, remoteAddress: '127.0.0.1' }, proto: 'http', trustProxy: true, secure: false },
    { name: 'a loopback proxy saying https, trusted', connection: { tls: false, remoteAddress: '127.0.0.1' }, proto: 'https', trustProxy: true, secure: true },
    { name: 'a loopback proxy saying https, not trusted', connection: { tls: false, remoteAddress: '127.0.0.1' }, proto: 'https', secure: false },
    { name: 'a remote proxy saying https, trusted', connection: { tls: false, remoteAddress: '10.0.0.2' }, proto: 'https', trustProxy: true, secure: true },
    { name: 'a remote peer claiming https, not trusted', connection: { tls: false, remoteAddress: '203.0.113.9' }, proto: 'https', secure: false },
  ];
  for (const row of rows) {
    it(`${row.name}: ${row.secure ? 'served' : '426'}`, async () => {
      const t = testApp({ env: row.trustProxy ? { TRUST_PROXY: 'true' } : {}, services: { connection: () => row.connection } });
      const headers: Record<string, string> = { Authorization: DEMO.key, ...(row.proto ? { 'X-Forwarded-Proto': row.proto } : {}) };
      const res = await t.get(row.url ?? 'http://gateway.example/v2/species', headers);
      expect(res.status, await res.text()).toBe(row.secure ? 200 : 426);
    });
  }
});

describe('transport over a real loopback socket (the Node entry reads TLS and the peer from the socket)', () => {
  it('serves a direct loopback client, and judges a trusted proxy by X-Forwarded-Proto', async () => {
    for (const [env, proto, status] of [
      [{}, undefined, 200],
      [{}, 'https', 426],
      [{ TRUST_PROXY: 'true' }, 'https', 200],
      [{ TRUST_PROXY: 'true' }, 'http', 426],
    ] as const) {
      const server = await serveOnLoopback(
        testApp({ now: AFTER_CUTOFF, env: { ...env, HTTPS_REDIRECT_UNTIL: CUTOFF }, services: { connection: nodeConnection } }),
      );
      try {
        const res = await fetch(`${server.origin}/v2/species`, { headers: { Authorization: DEMO.key, ...(proto ? { 'X-Forwarded-Proto': proto } : {}) } });
        const text = await res.text();
        expect(res.status, `${JSON.stringify(env)} ${proto}: ${text}`).toBe(status);
        if (status === 426) {
          expect(res.headers.get('Upgrade')).toBe('TLS/1.2, HTTP/1.1');
          expect(res.headers.get('Connection')?.toLowerCase()).toContain('upgrade');
        } else {
          expect(res.headers.get('Strict-Transport-Security')).toMatch(/^max-age=/);
        }
      } finally {
        await server.close();
      }
    }
  });

  it('redirects to the host the request was sent to, keeping path and query, ignoring X-Forwarded-Host', async () => {
    const t = testApp({ now: BEFORE_CUTOFF, env: { TRUST_PROXY: 'true', HTTPS_REDIRECT_UNTIL: CUTOFF }, services: { connection: nodeConnection } });
    const server = await serveOnLoopback(t);
    try {
      const headers = { Host: 'gateway.example', 'X-Forwarded-Proto': 'http', 'X-Forwarded-Host': 'evil.example' };
      const res = await server.send('GET', '/v2/species?q=a%20b&order%5Byear%5D=desc', headers);
      expect(res.status, res.body).toBe(301);
      expect(res.headers.location).toBe('https://gateway.example/v2/species?q=a%20b&order%5Byear%5D=desc');
      expect(res.headers['svc-request-id']).toBeTruthy();
    } finally {
      await server.close();
    }
  });
});
