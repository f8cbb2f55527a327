/**
 * The effective host over real connections: the Node adapter builds the request URL from an
 * absolute-form target's authority, or else from `Host` (RFC 9112 3.2.2), and the host policy
 * judges that URL. Raw sockets, since fetch() sends neither an absolute target nor a bad Host.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeConnection } from '../../src/node/connection';
import { hostSuite } from '../suites/host.suite';
import { BEFORE_CUTOFF } from '../suites/transport.suite';
import { testApp } from '../support/harness';
import { serveOnLoopback, type LoopbackServer } from '../support/loopback';
import { rawRequest } from '../support/raw-request';

hostSuite(({ now, env }) => testApp({ now, env }));

/** The configuration of the reported open redirect: redirecting to https, behind a trusted proxy. */
const REDIRECTING = { HTTPS_REDIRECT_UNTIL: '2027-12-31T00:00:00Z', TRUST_PROXY: 'true' };

async function serving(env: Record<string, string>): Promise<LoopbackServer> {
  return serveOnLoopback(testApp({ now: BEFORE_CUTOFF, env, services: { connection: nodeConnection } }));
}

describe('host over a real socket, PUBLIC_HOSTS set', () => {
  let server: LoopbackServer;
  // Built for each test: a mutation run credits the server's setup only to the tests during which it ran.
  beforeEach(async () => {
    server = await serving({ ...REDIRECTING, PUBLIC_HOSTS: 'api.example.com' });
  });
  afterEach(() => server.close());
  const send = (target: string, host: string, extra = '') =>
    rawRequest(server.origin, `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nX-Forwarded-Proto: http\r\n${extra}Connection: close\r\n\r\n`);

  it('answers 421, not a redirect, for a Host it does not serve', async () => {
    const res = await send('/v1/species?key=demo-project-key', 'evil.example');
    expect(res.status, res.text).toBe(421);
    expect(res.headers.location).toBeUndefined();
    expect(JSON.parse(res.body)).toMatchObject({ statusCode: 421 });
    expect(res.body).not.toContain('demo-project-key');
  });

  it('judges an absolute-form target by its authority, not by Host', async () => {
    const evil = await send('http://evil.example/v1/species?key=demo-project-key', 'api.example.com');
    expect(evil.status, evil.text).toBe(421);
    expect(evil.headers.location).toBeUndefined();
    const good = await send('http://api.example.com/v2/species?page=2', 'evil.example');
    expect(good.status, good.text).toBe(301);
    expect(good.headers.location).toBe('https://api.example.com/v2/species?page=2');
  });

  it('redirects a public Host, with no-store when the query holds a credential', async () => {
    const res = await send('/v1/species?key=demo-project-key', 'api.example.com:8787');
    expect(res.status, res.text).toBe(301);
    expect(res.headers.location).toBe('https://api.example.com:8787/v1/species?key=demo-project-key');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('answers 400 svc/invalidParameter for a Host that is no host[:port], on a v2 path as problem+json', async () => {
    for (const host of ['a{b}.example', 'a*b', '-evil.example', 'a..b']) {
      const res = await send('/v2/species', host);
      expect(res.status, `${host}: ${res.text}`).toBe(400);
      expect(res.headers['content-type']).toBe('application/problem+json');
      expect(JSON.parse(res.body)).toMatchObject({ status: 400, code: 'svc/invalidParameter' });
      expect(res.headers.location).toBeUndefined();
    }
  });

  it('lets a load balancer probe /healthz by address', async () => {
    const res = await send('/healthz', '10.1.2.3:8787');
    expect(res.status, res.text).toBe(200);
  });
});

describe('host over a real socket, PUBLIC_HOSTS unset (any valid host)', () => {
  it('redirects to the Host it was sent, but never lets a cache keep a redirect that carries a key', async () => {
    const server = await serving(REDIRECTING);
    try {
      const res = await rawRequest(
        server.origin,
        'GET /v1/species?key=demo-project-key HTTP/1.1\r\nHost: evil.example\r\nX-Forwarded-Proto: http\r\nConnection: close\r\n\r\n',
      );
      expect(res.status, res.text).toBe(301);
      expect(res.headers['cache-control']).toBe('no-store');
      const bad = await rawRequest(
        server.origin,
        'GET /v1/species?key=demo-project-key HTTP/1.1\r\nHost: evil{.example\r\nX-Forwarded-Proto: http\r\nConnection: close\r\n\r\n',
      );
      expect(bad.status, bad.text).toBe(400);
      expect(bad.headers.location).toBeUndefined();
    } finally {
      await server.close();
    }
  });
});
