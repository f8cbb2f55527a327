import { describe, expect, it } from 'vitest';
import { nodeConnection } from '../../src/node/connection';
import type { ConnectionInfo } from '../../src/services/connection';
import { AFTER_CUTOFF, BEFORE_CUTOFF, CUTOFF, transportSuite } from '../suites/transport.suite';
import { DEMO, testApp } from '../support/harness';
import { serveOnLoopback } from '../support/loopback';

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
