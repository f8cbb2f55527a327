/**
 * The host policy on its own (src/policies/host.ts), without the gateway or its dataset: which
 * hosts `PUBLIC_HOSTS` lets through, what a refusal says, and that each host is judged on its own
 * when one gateway is reached by several. The gateway-wide cases are in `test/suites/host.suite.ts`.
 */
import { Hono } from 'hono';
import { describe, expect, it, afterEach, beforeEach } from 'vitest';
import { parseConfig } from '../../../src/config';
import type { AppEnv } from '../../../src/env';
import { ApiError } from '../../../src/core/api-error';
import { hostCheck } from '../../../src/policies/host';
import { asMiddleware } from '../../../src/policies/policy';
import { nodeConnection } from '../../../src/node/connection';
import { hostSuite } from '../../suites/host.suite';
import { BEFORE_CUTOFF } from '../../suites/transport.suite';
import { testApp } from '../../support/harness';
import { serveOnLoopback, type LoopbackServer } from '../../support/loopback';
import { rawRequest } from '../../support/raw-request';

/** The policy in front of a route that answers the host it let through; a refusal as its status, code and detail. */
function gateway(publicHosts?: string) {
  const app = new Hono<AppEnv>();
  app.use(asMiddleware(hostCheck(parseConfig(publicHosts === undefined ? {} : { PUBLIC_HOSTS: publicHosts }))));
  app.all('*', (c) => c.text(c.get('host')));
  app.onError((err) => {
    if (!(err instanceof ApiError)) throw err;
    return new Response(JSON.stringify({ code: err.code, detail: err.detail }), { status: err.status });
  });
  return app;
}

async function ask(app: Hono<AppEnv>, url: string) {
  const res = await app.request(url);
  const text = await res.text();
  return { status: res.status, text };
}

describe('PUBLIC_HOSTS: which hosts are served', () => {
  const rows: Array<[entries: string, url: string, served: boolean]> = [
    ['api.example.com', 'https://api.example.com/v2/species', true],
    ['api.example.com', 'https://api.example.com:9443/v2/species', true],
    ['api.example.com', 'https://api.example.com./v2/species', true],
    ['api.example.com.', 'https://api.example.com/v2/species', true],
    ['api.example.com', 'https://www.api.example.com/v2/species', false],
    ['api.example.com', 'https://example.com/v2/species', false],
    ['api.example.com:8443', 'https://api.example.com:8443/v2/species', true],
    ['api.example.com:8443', 'https://api.example.com:9443/v2/species', false],
    ['api.example.com:8443', 'https://api.example.com/v2/species', false],
    // An entry with port 80 or 443 also matches a URL without a port: behind a TLS-terminating
    // proxy the gateway cannot tell which of the two defaults the client used.
    ['api.example.com:443', 'https://api.example.com/v2/species', true],
    ['api.example.com:443', 'http://api.example.com/v2/species', true],
    ['api.example.com:80', 'https://api.example.com/v2/species', true],
    ['api.example.com:443', 'https://api.example.com:8443/v2/species', false],
    ['[::1]:8787', 'http://[::1]:8787/v2/species', true],
    ['[::1]:8787', 'http://[::1]:8788/v2/species', false],
    ['[::1]', 'http://[::1]:8788/v2/species', true],
    ['other.example, api.example.com', 'https://api.example.com/v2/species', true],
  ];
  it.each(rows)('%s: %s -> %s', async (entries, url, served) => {
    const { status, text } = await ask(gateway(entries), url);
    expect(status, text).toBe(served ? 200 : 421);
    if (served) expect(text).toBe(new URL(url).host);
  });

  it('serves any valid host when unset', async () => {
    const { status, text } = await ask(gateway(), 'https://anything.example:8443/v2/species');
    expect(status, text).toBe(200);
    expect(text).toBe('anything.example:8443');
  });

  it.each(['/healthz', '/readyz'])('lets %s through for any host, and no other path', async (path) => {
    const app = gateway('api.example.com');
    expect((await ask(app, `http://10.1.2.3:8787${path}`)).status).toBe(200);
    expect((await ask(app, `http://10.1.2.3:8787${path}?full=1`)).status).toBe(200);
    expect((await ask(app, `http://10.1.2.3:8787${path}x`)).status).toBe(421);
  });
});

describe('what a refusal says', () => {
  it('421 names the host, cut to 100 characters', async () => {
    const app = gateway('api.example.com');
    expect(JSON.parse((await ask(app, 'https://evil.example:8443/v2/species')).text)).toEqual({
      code: 'svc/misdirected',
      detail: 'This gateway does not answer for evil.example:8443; send the request to its public host name.',
    });
    const long = `${'a'.repeat(60)}.${'b'.repeat(60)}.example`;
    expect(JSON.parse((await ask(app, `https://${long}/v2/species`)).text).detail).toBe(
      `This gateway does not answer for ${long.slice(0, 100)}; send the request to its public host name.`,
    );
  });

  it('400 for a host no DNS holds, on any path, the health paths included', async () => {
    for (const url of ['https://a*b/v2/species', 'https://-evil.example/healthz', 'https://a..b/v2/species']) {
      const { status, text } = await ask(gateway(), url);
      expect(status, `${url}: ${text}`).toBe(400);
      expect(JSON.parse(text)).toEqual({
        code: 'svc/invalidParameter',
        detail: 'The Host header (or the authority of an absolute request target) is not a valid host[:port].',
      });
    }
  });
});

describe('one gateway reached by several hosts', () => {
  it('judges each host on its own, whatever was asked before', async () => {
    const app = gateway('api.example.com');
    const asked: Array<[string, number]> = [
      ['https://api.example.com/v2/species', 200],
      ['https://evil.example/v2/species', 421],
      ['https://api.example.com/v2/genus', 200],
      ['https://a*b/v2/species', 400],
      ['https://api.example.com:8443/v2/species', 200],
      ['https://evil.example/v2/genus', 421],
    ];
    for (const [url, status] of asked) expect((await ask(app, url)).status, url).toBe(status);
  });

  it('still judges hosts rightly past the 256 it remembers', async () => {
    const app = gateway('api.example.com');
    for (let i = 0; i < 300; i++) expect((await ask(app, `https://h${i}.evil.example/v2/species`)).status).toBe(421);
    expect((await ask(app, 'https://api.example.com/v2/species')).status).toBe(200);
    expect((await ask(app, 'https://h5.evil.example/v2/species')).status).toBe(421);
  });
});

/**
 * The effective host over real connections: the Node adapter builds the request URL from an
 * absolute-form target's authority, or else from `Host` (RFC 9112 3.2.2), and the host policy
 * judges that URL. Raw sockets, since fetch() sends neither an absolute target nor a bad Host.
 */
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
