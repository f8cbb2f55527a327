/**
 * Failed-authentication throttling on Node (docs/reference/requests.md): the suite in process (the
 * address from X-Forwarded-For behind a trusted proxy), then over real loopback connections
 * from distinct client addresses, what is logged, and that a throttled secret is never checked.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { nodeConnection } from '../../../src/node/connection';
import { systemClock } from '../../../src/services/clock';
import { noMetrics } from '../../../src/services/metrics';
import { MemoryRateLimiter } from '../../../src/services/rate-limit/memory-rate-limiter';
import type { RateLimiter } from '../../../src/services/rate-limit/rate-limiter';
import type { CredentialStore } from '../../../src/services/credentials/credential-store';
import { MemoryCredentialStore } from '../../../src/services/credentials/credential-store';
import { DEMO_CREDENTIALS } from '../../../src/services/credentials/demo-credentials';
import { sha256Hex } from '../../../src/core/crypto';
import { AUTH_FAILURE_LIMIT, authFailureSuite } from '../../suites/auth-failures.suite';
import { basic } from '../../suites/tokens';
import { DEMO, testApp } from '../../support/harness';
import { serveOnLoopback, type LoopbackServer } from '../../support/loopback';
import { rawRequest } from '../../support/raw-request';

authFailureSuite(() => {
  const t = testApp({ env: { TRUST_PROXY: 'true', AUTH_FAILURES_PER_MINUTE: String(AUTH_FAILURE_LIMIT) } });
  return { client: () => t, from: (address) => ({ 'X-Forwarded-For': address }) };
});

describe('with a limiter that answers later (a shared one: Redis, a Durable Object), in process', () => {
  /** The in-memory limiter, answering each question a turn of the event loop later, as a shared limiter does. */
  function answeringLater(): RateLimiter {
    const inner = new MemoryRateLimiter(systemClock);
    const later = <T>(value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), 1));
    return { hit: (...args) => later(inner.hit(...args)), peek: (...args) => later(inner.peek(...args)) };
  }

  it('refuses past AUTH_FAILURES_PER_MINUTE with 429 before the secret is checked, a valid key as well', async () => {
    const { store, lookups } = countingStore();
    const t = testApp({
      env: { TRUST_PROXY: 'true', AUTH_FAILURES_PER_MINUTE: String(AUTH_FAILURE_LIMIT) },
      services: { rateLimiter: answeringLater(), credentials: store },
    });
    const from = { 'X-Forwarded-For': '198.51.100.23' };
    for (let i = 0; i < AUTH_FAILURE_LIMIT; i++) expect((await t.get('/v2/species', { ...from, Authorization: `ApiKey guess-${i}` })).status).toBe(401);
    const checked = lookups();
    for (const key of ['ApiKey guess-more', DEMO.key]) {
      const res = await t.get('/v2/species', { ...from, Authorization: key });
      expect(res.status, key).toBe(429);
      expect((await res.json()) as { code: string }).toMatchObject({ code: 'svc/tooManyRequests' });
      expect(Number(res.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1);
    }
    expect(lookups(), 'no secret checked once past the limit').toBe(checked);
    expect((await t.get('/v2/species', { 'X-Forwarded-For': '198.51.100.24', Authorization: DEMO.key })).status, 'another address').toBe(200);
  });

  it('at /oauth/token, per client, answers slow_down before the client secret is checked', async () => {
    const { store, lookups } = countingStore();
    const t = testApp({
      env: { TRUST_PROXY: 'true', AUTH_FAILURES_PER_MINUTE: String(AUTH_FAILURE_LIMIT) },
      services: { rateLimiter: answeringLater(), credentials: store },
    });
    const token = (address: string, secret: string) =>
      t.app.request('https://localhost/oauth/token', {
        method: 'POST',
        headers: { 'X-Forwarded-For': address, Authorization: basic('demo-client', secret), 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      });
    for (let i = 0; i < AUTH_FAILURE_LIMIT; i++) expect((await token(`203.0.113.${i}`, `wrong-${i}`)).status).toBe(401);
    const checked = lookups();
    const refused = await token('203.0.113.200', 'wrong-again');
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: string }).error).toBe('slow_down');
    expect(lookups(), 'no secret checked once past the limit').toBe(checked);
  });
});

describe('a client authentication that succeeded spares that authentication only', () => {
  // The throttle skips a presentation known good (docs/reference/operations.md); a guess of the same client's
  // secret, in either place, is another presentation and is throttled as ever.
  it.each([
    ['by Basic', (secret: string) => ({ headers: { Authorization: basic(DEMO.clientId, secret) }, body: 'grant_type=client_credentials' })],
    ['in the body', (secret: string) => ({ headers: {}, body: `grant_type=client_credentials&client_id=${DEMO.clientId}&client_secret=${secret}` })],
  ])('%s: guesses after a success are refused with slow_down past the limit', async (_, presented) => {
    const t = testApp({ env: { TRUST_PROXY: 'true', AUTH_FAILURES_PER_MINUTE: String(AUTH_FAILURE_LIMIT) } });
    const token = (secret: string) => {
      const { headers, body } = presented(secret);
      return t.app.request('https://localhost/oauth/token', {
        method: 'POST',
        headers: { 'X-Forwarded-For': '203.0.113.77', 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
        body,
      });
    };
    expect((await token(DEMO.clientSecret)).status, 'the client itself').toBe(200);
    for (let i = 0; i < AUTH_FAILURE_LIMIT; i++) expect((await token(`guess-${i}`)).status).toBe(401);
    const refused = await token('guess-more');
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: string }).error).toBe('slow_down');
    expect((await token(DEMO.clientSecret)).status, 'the client known good is still served').toBe(200);
  });
});

/** A credential store that counts how often a secret is looked up. */
function countingStore(): { store: CredentialStore; lookups: () => number } {
  const inner = new MemoryCredentialStore(DEMO_CREDENTIALS);
  let lookups = 0;
  const store: CredentialStore = {
    apiKey: (digest) => (lookups++, inner.apiKey(digest)),
    personalToken: (digest) => (lookups++, inner.personalToken(digest)),
    client: (id) => (lookups++, inner.client(id)),
    tokenClient: (id, credential) => (lookups++, inner.tokenClient(id, credential)),
  };
  return { store, lookups: () => lookups };
}

async function served(env: Record<string, string> = {}, store?: CredentialStore) {
  const t = testApp({ env, services: { connection: nodeConnection, ...(store ? { credentials: store } : {}) } });
  return { t, server: await serveOnLoopback(t) };
}

const get = (server: LoopbackServer, from: string, headers: string) =>
  rawRequest(server.origin, `GET /v2/species HTTP/1.1\r\nHost: localhost\r\n${headers}Connection: close\r\n\r\n`, from);

describe('over real connections, the TCP peer is the source address', () => {
  it('slows a guesser after AUTH_FAILURES_PER_MINUTE (20) wrong keys, without checking the rest; other addresses are served', async () => {
    const counting = countingStore();
    const { t, server } = await served({}, counting.store);
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 25; i++) statuses.push((await get(server, '127.0.0.2', `Authorization: ApiKey guess-${i}\r\n`)).status);
      expect(statuses).toEqual([...Array(20).fill(401), ...Array(5).fill(429)]);
      const lookupsBefore = counting.lookups();
      const right = await get(server, '127.0.0.2', `Authorization: ${DEMO.key}\r\n`);
      expect(right.status, right.text).toBe(429);
      expect(Number(right.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(counting.lookups(), 'a throttled secret was looked up').toBe(lookupsBefore);
      expect(t.logs.at(-1)).toMatchObject({ status: 429, flags: ['authThrottled'] });
      expect((await get(server, '127.0.0.3', `Authorization: ${DEMO.key}\r\n`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('serves a key known good behind a throttled address without a throttle lookup, and names the place of a throttled credential', async () => {
    const { t, server } = await served();
    try {
      expect((await get(server, '127.0.0.4', `Authorization: ${DEMO.key}\r\n`)).status).toBe(200);
      for (let i = 0; i < 20; i++) expect((await get(server, '127.0.0.4', `Authorization: ApiKey guess-${i}\r\n`)).status).toBe(401);
      expect((await get(server, '127.0.0.4', `Authorization: ${DEMO.key}\r\n`)).status).toBe(200);
      expect(t.logs.at(-1)).toMatchObject({ status: 200, credential: 'apiKey', subject: 'project:demo' });
      // A throttled line says where the refused credential came, as any other line does.
      const throttled = await rawRequest(
        server.origin,
        'GET /v1/species HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: guess-again\r\nConnection: close\r\n\r\n',
        '127.0.0.4',
      );
      expect(throttled.status).toBe(429);
      expect(t.logs.at(-1)).toMatchObject({ status: 429, credential: 'v1:x-api-key', flags: ['authThrottled'] });
      expect(JSON.stringify(t.logs.at(-1))).not.toMatch(/guess-again/);
    } finally {
      await server.close();
    }
  });

  it('ignores X-Forwarded-For without TRUST_PROXY, and CF-Connecting-IP on Node: a guesser cannot rotate them to escape', async () => {
    const { server } = await served({ AUTH_FAILURES_PER_MINUTE: '2' });
    try {
      const statuses = [];
      for (let i = 0; i < 4; i++)
        statuses.push(
          (await get(server, '127.0.0.4', `X-Forwarded-For: 198.51.100.${i}\r\nCF-Connecting-IP: 198.51.100.${i}\r\nAuthorization: ApiKey guess\r\n`)).status,
        );
      expect(statuses).toEqual([401, 401, 429, 429]);
    } finally {
      await server.close();
    }
  });

  it('with TRUST_PROXY takes the right-most X-Forwarded-For entry: what the client wrote left of it does not matter', async () => {
    const { server } = await served({ AUTH_FAILURES_PER_MINUTE: '2', TRUST_PROXY: 'true' });
    try {
      const statuses = [];
      for (let i = 0; i < 4; i++)
        statuses.push((await get(server, '127.0.0.5', `X-Forwarded-For: 198.51.100.${i}, 203.0.113.7\r\nAuthorization: ApiKey guess\r\n`)).status);
      expect(statuses).toEqual([401, 401, 429, 429]);
      // Another client behind the same proxy (same TCP peer) is another address.
      expect((await get(server, '127.0.0.5', `X-Forwarded-For: 203.0.113.8\r\nAuthorization: ${DEMO.key}\r\n`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('throttles the token endpoint per client across addresses, comparing no secret once past the limit', async () => {
    const counting = countingStore();
    const { server } = await served({ AUTH_FAILURES_PER_MINUTE: '2' }, counting.store);
    const token = (from: string, secret: string) => {
      const body = `grant_type=client_credentials&client_id=${DEMO.clientId}&client_secret=${secret}`;
      return rawRequest(
        server.origin,
        `POST /oauth/token HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
        from,
      );
    };
    try {
      expect((await token('127.0.0.6', 'guess-1')).status).toBe(401);
      expect((await token('127.0.0.7', 'guess-2')).status).toBe(401);
      const lookupsBefore = counting.lookups();
      const refused = await token('127.0.0.8', DEMO.clientSecret);
      expect(refused.status, refused.text).toBe(429);
      expect(JSON.parse(refused.body)).toMatchObject({ error: 'slow_down' });
      expect(refused.headers['retry-after']).toMatch(/^\d+$/);
      expect(counting.lookups()).toBe(lookupsBefore);
    } finally {
      await server.close();
    }
  });
});

describe('the log line of a failure', () => {
  it('is the request’s access line, naming the place, the code, the client and the source address, never the secret', async () => {
    const t = testApp({ env: { TRUST_PROXY: 'true' } });
    const from = { 'X-Forwarded-For': '198.51.100.1, 203.0.113.9' };
    await t.get('/v2/species', { ...from, Authorization: 'ApiKey sekret-guess-1' });
    await t.get('/v1/species?key=sekret-guess-2', from);
    await t.get('/v2/species', { ...from, Authorization: 'Bearer sekret.guess.3' });
    await t.get('/v2/species?KEY=sekret-guess-4&key=sekret-guess-5', from);
    await t.get('/v2/species', from);
    await t.get('/v2/species', { ...from, Authorization: DEMO.key });
    await t.get(
      '/oauth/token',
      { ...from, 'Content-Type': 'application/x-www-form-urlencoded' },
      { method: 'POST', body: 'grant_type=client_credentials&client_id=demo-client&client_secret=sekret-guess-6' },
    );
    await t.get(
      '/oauth/token',
      { ...from, 'Content-Type': 'application/x-www-form-urlencoded', Authorization: basic('demo-client', 'sekret-guess-7') },
      { method: 'POST', body: 'grant_type=client_credentials' },
    );
    expect(t.logs).toHaveLength(8);
    const failure = (place: string, code: string, client_id: string | null = null) => ({ place, code, client_id, source_address: '203.0.113.9' });
    expect(t.logs.map((l) => [l.status, l.auth_failure ?? null])).toEqual([
      [401, failure('authorization', 'auth/invalidCredential')],
      [401, failure('query:key', 'auth/invalidCredential')],
      [401, failure('authorization', 'auth/invalidCredential')],
      [401, failure('query:key', 'auth/credentialNotAccepted')],
      // No credential: nothing was refused.
      [401, null],
      [200, null],
      [401, failure('oauth:body', 'oauth/invalidClient', 'demo-client')],
      [401, failure('oauth:basic', 'oauth/invalidClient', 'demo-client')],
    ]);
    expect(JSON.stringify(t.logs)).not.toMatch(/sekret/);
  });
});

describe('what the throttle tells the caller and the operator', () => {
  // The first request of a file builds the dataset's index and the description's validator: not on a test's clock.
  // A hook that cannot fail: one that failed under a fault would skip the tests that catch it.
  beforeAll(async () => void (await testApp().app.request('https://localhost/v2/species', { headers: { Authorization: DEMO.key } })));
  const form = { 'Content-Type': 'application/x-www-form-urlencoded' };

  it('names every limit passed, and counts refused credentials and throttled requests in the metrics', async () => {
    const seen: string[] = [];
    const metrics = { ...noMetrics, authFailure: (place: string, code: string) => seen.push(`${place} ${code}`), refused: (kind: string) => seen.push(kind) };
    const t = testApp({ env: { TRUST_PROXY: 'true', AUTH_FAILURES_PER_MINUTE: '1' }, now: '2026-11-21T12:00:15Z', services: { metrics } });
    const from = { 'X-Forwarded-For': '198.51.100.50' };
    const body = `grant_type=client_credentials&client_id=${DEMO.clientId}&client_secret=wrong`;
    expect((await t.get('/oauth/token', { ...from, ...form }, { method: 'POST', body })).status).toBe(401);
    expect(seen).toEqual(['oauth:body oauth/invalidClient']);
    // The address and the client are both past the limit now.
    const refused = await t.get('/oauth/token', { ...from, ...form }, { method: 'POST', body });
    const answer = (await refused.json()) as { error: string; error_description: string };
    expect(refused.status, JSON.stringify(answer)).toBe(429);
    expect(answer).toEqual({
      error: 'slow_down',
      error_description: 'More than 1 failed authentications this minute from this address and for this client; retry in 45 s.',
    });
    expect(refused.headers.get('Retry-After')).toBe('45');
    expect(seen).toEqual(['oauth:body oauth/invalidClient', 'auth_failures']);
    // Only the limit that is passed is named: the client from another address, another client from this one.
    const refusal = async (address: string, clientId: string) => {
      const res = await t.get(
        '/oauth/token',
        { 'X-Forwarded-For': address, ...form },
        { method: 'POST', body: `grant_type=client_credentials&client_id=${clientId}&client_secret=wrong` },
      );
      return ((await res.json()) as { error_description: string }).error_description;
    };
    expect(await refusal('198.51.100.52', DEMO.clientId)).toBe('More than 1 failed authentications this minute for this client; retry in 45 s.');
    expect(await refusal('198.51.100.50', 'another-client')).toBe('More than 1 failed authentications this minute from this address; retry in 45 s.');
  });

  it('remembers a key known good for one window after its last success, no longer: then it waits like any other secret', async () => {
    const t = testApp({ env: { TRUST_PROXY: 'true', AUTH_FAILURES_PER_MINUTE: '1' }, now: '2026-11-21T12:00:00Z' });
    const from = { 'X-Forwarded-For': '198.51.100.70' };
    const status = async (authorization: string) => (await t.get('/v2/species/ABBA', { ...from, Authorization: authorization })).status;
    /** Past the limit in the current minute: one wrong key counted, the next refused unchecked. */
    const throttle = async () => {
      expect(await status('ApiKey wrong-key')).toBe(401);
      expect(await status('ApiKey wrong-key')).toBe(429);
    };
    t.clock.set('2026-11-21T12:00:05Z');
    expect(await status(DEMO.key)).toBe(200);
    await throttle();
    expect(await status(DEMO.key), 'known good: served behind the throttled address').toBe(200);
    // A new minute, new failures; the key's last success was 12:00:05. Just inside the window it passes...
    t.clock.set('2026-11-21T12:01:04.999Z');
    await throttle();
    expect(await status(DEMO.key), '59.999 s after its last success').toBe(200);
    // Each success starts the window again: 119 s after the first, 59 s after the last, it passes...
    t.clock.set('2026-11-21T12:02:04Z');
    await throttle();
    expect(await status(DEMO.key), '59.001 s after its last success (12:01:04.999)').toBe(200);
    // ...and once a whole window has passed since the last success, it is a secret like any other.
    t.clock.set('2026-11-21T12:03:04Z');
    await throttle();
    expect(await status(DEMO.key), '60 s after its last success (12:02:04)').toBe(429);
  });

  it('hashes a key known good once a window, looks it up by the digest remembered, and still refuses it once revoked', async () => {
    const inner = new MemoryCredentialStore(DEMO_CREDENTIALS);
    let revoked = false;
    const store: CredentialStore = Object.create(inner);
    store.apiKey = (digest) => (revoked ? undefined : inner.apiKey(digest));
    const hashed: string[] = [];
    const digest = async (text: string) => {
      hashed.push(text);
      return sha256Hex(text);
    };
    const t = testApp({ now: '2026-11-21T12:00:00Z', services: { credentials: store, digest } });
    const status = async () => (await t.get('/v2/species/ABBA', { Authorization: DEMO.key })).status;
    const key = DEMO.key.slice('ApiKey '.length);
    expect(await status()).toBe(200);
    expect(await status()).toBe(200);
    t.clock.set('2026-11-21T12:00:59Z');
    expect(await status()).toBe(200);
    expect(
      hashed.filter((h) => h === key),
      'hashed once for three requests within the window',
    ).toHaveLength(1);
    // A whole window after its last success it is hashed again, as any secret is.
    t.clock.set('2026-11-21T12:02:00Z');
    expect(await status()).toBe(200);
    expect(hashed.filter((h) => h === key)).toHaveLength(2);
    revoked = true;
    expect(await status(), 'revoked while known good').toBe(401);
  });

  it('keeps 200 characters of a named client_id in the log line', async () => {
    const t = testApp({ env: { TRUST_PROXY: 'true' } });
    const clientId = `c${'x'.repeat(300)}`;
    const res = await t.get(
      '/oauth/token',
      { 'X-Forwarded-For': '198.51.100.51', ...form },
      { method: 'POST', body: `grant_type=client_credentials&client_id=${clientId}&client_secret=wrong` },
    );
    expect(res.status, await res.text()).toBe(401);
    expect(t.logs.at(-1)!.auth_failure).toEqual({
      place: 'oauth:body',
      code: 'oauth/invalidClient',
      client_id: clientId.slice(0, 200),
      source_address: '198.51.100.51',
    });
  });

  it('where no source address is known, counts none: every caller would otherwise share one budget', async () => {
    // In process the connection names no peer, and without TRUST_PROXY X-Forwarded-For is not read: no address is known.
    const t = testApp({ env: { AUTH_FAILURES_PER_MINUTE: '1' } });
    for (let i = 0; i < 3; i++) expect((await t.get('/v2/species', { Authorization: `ApiKey guess-${i}` })).status).toBe(401);
    expect(t.logs.at(-1)!.auth_failure).toEqual({ place: 'authorization', code: 'auth/invalidCredential', client_id: null, source_address: null });
    expect((await t.get('/v2/species', { Authorization: DEMO.key })).status).toBe(200);
  });
});
