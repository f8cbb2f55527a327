/**
 * Authentication as a caller and an operator see it, in process: what each refusal says and which
 * challenge it carries, which credential of several is the one checked, how the access line names
 * the credential, and that a fault of the credential store is not counted as a refused credential.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { CredentialStore } from '../../../../src/services/credentials/credential-store';
import { MemoryCredentialStore } from '../../../../src/services/credentials/credential-store';
import { DEMO_CREDENTIALS } from '../../../../src/services/credentials/demo-credentials';
import { mintDemoToken } from '../../../suites/tokens';
import { DEMO, json, testApp } from '../../../support/harness';

// The first request of the file builds the dataset's index and the description's validator: not on a test's clock.
// A hook that cannot fail: one that failed under a fault would skip the tests that catch it.
beforeAll(async () => void (await testApp().app.request('https://localhost/v2/species', { headers: { Authorization: DEMO.key } })));

const BOTH = 'ApiKey realm="botanical", Bearer realm="botanical"';
const V1_PLACES = 'the Authorization header, or the x-api-key header, or the x-key header, or the "key" query parameter, or the "token" query parameter';

describe('a refused credential: status, code, what the body says, the challenge', () => {
  // `place`: where the refused credential arrived, as the access line names it (none when nothing was presented).
  const rows: Array<{ name: string; path: string; headers: Record<string, string>; code: string; detail: string; challenge: string; place?: string }> = [
    {
      name: 'v2, no credential',
      path: '/v2/species',
      headers: {},
      code: 'auth/missingCredential',
      detail: 'Send a credential in the Authorization header.',
      challenge: BOTH,
    },
    {
      name: 'v2, a key in x-api-key',
      place: 'x-api-key',
      path: '/v2/species',
      headers: { 'x-api-key': 'demo-project-key' },
      code: 'auth/credentialNotAccepted',
      detail: 'v2 accepts credentials only in the Authorization header; remove the x-api-key header.',
      challenge: BOTH,
    },
    {
      name: 'v2, a token in the query beside a valid header',
      place: 'query:token',
      path: '/v2/species?q=fir&token=demo-personal-token',
      headers: { Authorization: DEMO.key },
      code: 'auth/credentialNotAccepted',
      detail: 'v2 accepts credentials only in the Authorization header; remove the "token" query parameter.',
      challenge: BOTH,
    },
    {
      name: 'v2, a header that names no scheme',
      place: 'authorization',
      path: '/v2/species',
      headers: { Authorization: 'demo-project-key' },
      code: 'auth/invalidCredential',
      detail: 'The Authorization header must be "ApiKey <key>" or "Bearer <token>".',
      challenge: BOTH,
    },
    {
      name: 'v2, a scheme the gateway does not take (Basic)',
      place: 'authorization',
      path: '/v2/species',
      headers: { Authorization: 'Basic ZGVtby1jbGllbnQ6ZGVtby1jbGllbnQtc2VjcmV0' },
      code: 'auth/invalidCredential',
      detail: 'The Authorization header must be "ApiKey <key>" or "Bearer <token>".',
      challenge: BOTH,
    },
    {
      name: 'v2, an unknown API key: no invalid_token',
      place: 'authorization',
      path: '/v2/species',
      headers: { Authorization: 'ApiKey not-a-key' },
      code: 'auth/invalidCredential',
      detail: 'The credential is not valid.',
      challenge: BOTH,
    },
    {
      name: 'v2, a personal access token under the ApiKey scheme: an API key is looked for, and none is',
      place: 'authorization',
      path: '/v2/species',
      headers: { Authorization: `ApiKey ${DEMO.personalToken.slice('Bearer '.length)}` },
      code: 'auth/invalidCredential',
      detail: 'The credential is not valid.',
      challenge: BOTH,
    },
    {
      name: 'v2, an unknown Bearer token: invalid_token on the Bearer challenge',
      place: 'authorization',
      path: '/v2/species',
      headers: { Authorization: 'Bearer not-a-token' },
      code: 'auth/invalidCredential',
      detail: 'The credential is not valid.',
      challenge: 'ApiKey realm="botanical", Bearer realm="botanical", error="invalid_token"',
    },
    {
      name: 'v3, an API key',
      place: 'authorization',
      path: '/v3/species',
      headers: { Authorization: DEMO.key },
      code: 'auth/credentialNotAccepted',
      detail: 'v3 does not accept API keys.',
      challenge: 'Bearer realm="botanical"',
    },
    {
      name: 'v3, an API key in x-key',
      place: 'x-key',
      path: '/v3/species',
      headers: { 'x-key': 'demo-project-key' },
      code: 'auth/credentialNotAccepted',
      detail: 'v3 accepts credentials only in the Authorization header; remove the x-key header.',
      challenge: 'Bearer realm="botanical"',
    },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const t = testApp();
      const res = await t.get(row.path, row.headers);
      const body = await json(res);
      expect(res.status, JSON.stringify(body)).toBe(401);
      expect(body, JSON.stringify(body)).toMatchObject({ code: row.code, detail: row.detail });
      expect(res.headers.get('WWW-Authenticate')).toBe(row.challenge);
      const failure = t.logs.at(-1)!.auth_failure;
      if (row.place) expect(failure).toMatchObject({ place: row.place, code: row.code });
      else expect(failure).toBeUndefined();
    });
  }

  it('v1, no credential: the message lists every place v1 takes, in order', async () => {
    const res = await testApp().get('/v1/species', {});
    const body = await json(res);
    expect(res.status).toBe(401);
    expect(body).toEqual({ statusCode: 401, message: `Send a credential in ${V1_PLACES}.` });
    expect(res.headers.get('WWW-Authenticate')).toBe(BOTH);
  });
});

describe('a resource family the credential does not reach', () => {
  it('answers 403 auth/forbidden, naming the family', async () => {
    const t = testApp();
    const res = await t.get('/v2/genus', { Authorization: DEMO.speciesOnlyKey });
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(403);
    expect(body).toMatchObject({ code: 'auth/forbidden', detail: 'This credential does not grant access to genus.' });
    expect((await t.get('/v2/species', { Authorization: DEMO.speciesOnlyKey })).status).toBe(200);
  });
});

describe('the closed preview', () => {
  it('answers a valid credential outside it with 403 auth/forbidden, naming the version', async () => {
    const res = await testApp().get('/v3/species', { Authorization: DEMO.personalToken });
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(403);
    expect(body).toMatchObject({ code: 'auth/forbidden', detail: 'v3 is a closed preview; this credential is not in it.' });
  });
});

describe('several credentials on one v1 request: the first accepted place present is the one checked', () => {
  it.each([
    ['x-api-key before ?key', '/v1/species?key=wrong-key', { 'x-api-key': 'demo-project-key' }, 200],
    ['x-api-key before ?key, a wrong one in front', '/v1/species?key=demo-project-key', { 'x-api-key': 'wrong-key' }, 401],
    ['x-key before ?token', '/v1/species?token=wrong-token', { 'x-key': 'demo-personal-token' }, 200],
    ['Authorization before x-key', '/v1/species', { Authorization: 'ApiKey wrong-key', 'x-key': 'demo-project-key' }, 401],
  ])('%s', async (_, path, headers, status) => {
    const res = await testApp().get(path, headers);
    expect(res.status, await res.text()).toBe(status);
  });
});

describe('the access line names the credential that was accepted', () => {
  it.each([
    ['/v2/species', { Authorization: DEMO.key }, 'apiKey'],
    ['/v2/species', { Authorization: DEMO.personalToken }, 'bearer'],
    ['/v1/species', { Authorization: DEMO.personalToken }, 'bearer'],
    ['/v1/species', { 'x-api-key': 'demo-project-key' }, 'v1:x-api-key'],
    ['/api/v1/species', { 'x-key': 'demo-personal-token' }, 'v1:x-key'],
    ['/v1/species?q=oak&key=demo-project-key', {}, 'v1:query'],
    ['/v1/species?token=demo-personal-token', {}, 'v1:query'],
  ])('%s %j: %s', async (path, headers, credential) => {
    const t = testApp();
    const res = await t.get(path, headers);
    expect(res.status, await res.text()).toBe(200);
    expect(t.logs.at(-1)).toMatchObject({ status: 200, credential });
  });

  it('an OAuth token: bearer, its client as the subject', async () => {
    const t = testApp();
    const token = await mintDemoToken(t);
    expect((await t.get('/v3/species', { Authorization: `Bearer ${token}` })).status).toBe(200);
    expect(t.logs.at(-1)).toMatchObject({ status: 200, credential: 'bearer' });
  });
});

describe('a credential store that fails', () => {
  /** The demo store, failing every lookup of a project key. */
  function failingStore(): CredentialStore {
    const inner = new MemoryCredentialStore(DEMO_CREDENTIALS);
    return {
      apiKey: () => Promise.reject(new Error('store unreachable')),
      personalToken: (digest) => inner.personalToken(digest),
      client: (id) => inner.client(id),
      tokenClient: (id, credential) => inner.tokenClient(id, credential),
    };
  }

  it("answers 500 to a Bearer token too when its lookup fails, logging the store's failure", async () => {
    const inner = new MemoryCredentialStore(DEMO_CREDENTIALS);
    const credentials: CredentialStore = {
      apiKey: (digest) => inner.apiKey(digest),
      personalToken: () => Promise.reject(new Error('store unreachable')),
      client: (id) => inner.client(id),
      tokenClient: (id, credential) => inner.tokenClient(id, credential),
    };
    const t = testApp({ services: { credentials } });
    const res = await t.get('/v2/species', { Authorization: DEMO.personalToken });
    expect(res.status, await res.text()).toBe(500);
    expect(res.headers.get('WWW-Authenticate')).toBeNull();
    expect(t.logs.at(-1)!.auth_failure).toBeUndefined();
    // The operator reads the store's own failure, not one of the gateway's making.
    expect(t.logs.filter((l) => l.level === 'error')).toMatchObject([{ error: 'Error', message: 'store unreachable' }]);
  });

  it('answers 500, and neither logs nor counts the credential as refused', async () => {
    const t = testApp({ env: { AUTH_FAILURES_PER_MINUTE: '1', TRUST_PROXY: 'true' }, services: { credentials: failingStore() } });
    const from = { 'X-Forwarded-For': '198.51.100.40' };
    for (let i = 0; i < 2; i++) {
      const res = await t.get('/v2/species', { ...from, Authorization: DEMO.key });
      expect(res.status, await res.text()).toBe(500);
      expect(t.logs.at(-1)!.auth_failure, JSON.stringify(t.logs.at(-1))).toBeUndefined();
    }
    // Nothing was counted: a Bearer token from the same address is still checked, and served.
    expect((await t.get('/v2/species', { ...from, Authorization: DEMO.personalToken })).status).toBe(200);
  });
});

describe('an access token whose client no longer holds the secret it was issued to', () => {
  it('is refused as invalid_token, saying the client credential was revoked', async () => {
    const inner = new MemoryCredentialStore(DEMO_CREDENTIALS);
    // The client is still known (the token is issued), but not the secret behind the token any more.
    const credentials: CredentialStore = {
      apiKey: (digest) => inner.apiKey(digest),
      personalToken: (digest) => inner.personalToken(digest),
      client: (id) => inner.client(id),
      tokenClient: () => undefined,
    };
    const t = testApp({ services: { credentials } });
    const token = await mintDemoToken(t);
    const res = await t.get('/v3/species', { Authorization: `Bearer ${token}` });
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(401);
    expect(body).toMatchObject({
      code: 'auth/invalidCredential',
      detail: 'The access token was issued to a client credential that has been revoked.',
    });
    expect(res.headers.get('WWW-Authenticate')).toBe('Bearer realm="botanical", error="invalid_token"');
    expect(t.logs.at(-1)!.auth_failure).toMatchObject({ place: 'authorization', code: 'auth/invalidCredential' });
  });
});

describe("a version's description", () => {
  it('needs no credential, and a refused one there is neither checked nor counted', async () => {
    const t = testApp({ env: { AUTH_FAILURES_PER_MINUTE: '1', TRUST_PROXY: 'true' } });
    const from = { 'X-Forwarded-For': '198.51.100.41' };
    const attempts: Array<Record<string, string>> = [{}, { Authorization: 'ApiKey wrong-key' }, { Authorization: 'ApiKey wrong-key' }];
    for (const headers of attempts) {
      const res = await t.get('/v2/openapi.json', { ...from, ...headers });
      expect(res.status, await res.text()).toBe(200);
    }
    expect(t.logs.map((l) => l.auth_failure)).toEqual([undefined, undefined, undefined]);
    expect((await t.get('/v2/species', { ...from, Authorization: DEMO.key })).status).toBe(200);
  });
});
