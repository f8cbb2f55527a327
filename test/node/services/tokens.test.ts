import { sign } from 'hono/jwt';
import { describe, expect, it } from 'vitest';
import { mintDemoToken } from '../../suites/tokens';
import { json, NOW, testApp, type TestApp } from '../../support/harness';

const ISSUED_AT = Date.parse(NOW) / 1000;

async function read(t: TestApp, token: string, path = '/v2/species') {
  const res = await t.get(path, { Authorization: `Bearer ${token}` });
  return { res, body: await json(res) };
}

const DETAIL: Record<string, string> = {
  'auth/invalidCredential': 'The access token is not valid.',
  'auth/tokenExpired': 'The access token has expired; request a new one.',
};

function expectInvalidToken(res: Response, body: any, code: string): void {
  expect(res.status, JSON.stringify(body)).toBe(401);
  expect(body.code, JSON.stringify(body)).toBe(code);
  expect(body.detail).toBe(DETAIL[code]);
  expect(res.headers.get('WWW-Authenticate')).toMatch(/Bearer realm="botanical", error="invalid_token"/);
}

describe('access tokens: expiry on the injected clock', () => {
  for (const path of ['/v2/species', '/v3/species']) {
    it(`${path}: valid 899 s after issue, expired (auth/tokenExpired) at 900 s`, async () => {
      const t = testApp();
      const token = await mintDemoToken(t);
      t.clock.advance(899_000);
      const ok = await read(t, token, path);
      expect(ok.res.status, JSON.stringify(ok.body)).toBe(200);
      t.clock.advance(1_000);
      const expired = await read(t, token, path);
      expectInvalidToken(expired.res, expired.body, 'auth/tokenExpired');
    });
  }
});

describe('access tokens: signature', () => {
  it('leaves a Bearer credential not shaped as a token to the personal tokens: it is not refused as a bad token', async () => {
    const { res, body } = await read(testApp(), 'demo-personal-token', '/v2/species');
    expect(res.status, JSON.stringify(body)).toBe(200);
  });

  it('is verified by another instance with the same TOKEN_SIGNING_SECRET, with no shared state', async () => {
    const token = await mintDemoToken(testApp());
    const { res, body } = await read(testApp(), token);
    expect(res.status, JSON.stringify(body)).toBe(200);
  });

  it('is refused by an instance with another secret', async () => {
    const token = await mintDemoToken(testApp());
    const { res, body } = await read(testApp({ env: { TOKEN_SIGNING_SECRET: 'another-secret' } }), token);
    expectInvalidToken(res, body, 'auth/invalidCredential');
  });

  const tamperings: Array<[string, (token: string) => Promise<string> | string]> = [
    [
      'a changed payload (wider access) with the old signature',
      (token) => {
        const [header, payload, signature] = token.split('.');
        const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
        return `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url')}.${signature}`;
      },
    ],
    ['a changed signature', (token) => `${token.slice(0, -4)}${token.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`],
    [
      'alg none',
      (token) => {
        const payload = token.split('.')[1];
        return `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${payload}.x`;
      },
    ],
    [
      'HS512 with the right secret (the algorithm is pinned)',
      () => sign({ sub: 'demo-client', iat: ISSUED_AT, exp: ISSUED_AT + 900, res: ['species'], pre: true }, 'test-signing-secret', 'HS512'),
    ],
    ['a token without exp', () => sign({ sub: 'demo-client', iat: ISSUED_AT, res: ['species'], pre: true }, 'test-signing-secret', 'HS256')],
  ];
  for (const [name, tamper] of tamperings) {
    it(`refuses ${name}: 401 auth/invalidCredential`, async () => {
      const t = testApp();
      const { res, body } = await read(t, await tamper(await mintDemoToken(t)));
      expectInvalidToken(res, body, 'auth/invalidCredential');
    });
  }

  // Signed with the right secret and algorithm, but claiming what the gateway never issues (docs/reference/requests.md).
  const claimsRefused: Array<[string, Record<string, unknown>]> = [
    ['a lifetime of 901 s', { iat: ISSUED_AT, exp: ISSUED_AT + 901 }],
    ['a lifetime of a year', { iat: ISSUED_AT, exp: ISSUED_AT + 365 * 86_400 }],
    ['an iat 61 s ahead of the clock', { iat: ISSUED_AT + 61, exp: ISSUED_AT + 61 + 900 }],
    ['no iat', { exp: ISSUED_AT + 900 }],
    ['an iat that is not a number', { iat: String(ISSUED_AT), exp: ISSUED_AT + 900 }],
    ['an exp that is not a number', { iat: ISSUED_AT, exp: String(ISSUED_AT + 900) }],
    ['a sub that is not a string', { iat: ISSUED_AT, exp: ISSUED_AT + 900, sub: 42 }],
    ['resources that are not a list', { iat: ISSUED_AT, exp: ISSUED_AT + 900, res: 'species' }],
    ['a credential id that is not one', { iat: ISSUED_AT, exp: ISSUED_AT + 900, cid: 'demo-key' }],
    ['a credential id that is not a string', { iat: ISSUED_AT, exp: ISSUED_AT + 900, cid: 1234567890123456 }],
  ];
  for (const [name, times] of claimsRefused) {
    for (const path of ['/v2/species', '/v3/species']) {
      it(`${path}: refuses a signed token with ${name}: 401 auth/invalidCredential`, async () => {
        const t = testApp();
        const token = await sign({ sub: 'demo-client', res: ['species'], pre: true, ...times }, 'test-signing-secret', 'HS256');
        const { res, body } = await read(t, token, path);
        expectInvalidToken(res, body, 'auth/invalidCredential');
      });
    }
  }

  it('accepts the bounds: a lifetime of exactly 900 s, an iat 60 s ahead of the clock', async () => {
    const t = testApp();
    for (const times of [
      { iat: ISSUED_AT, exp: ISSUED_AT + 900 },
      { iat: ISSUED_AT + 60, exp: ISSUED_AT + 960 },
    ]) {
      const token = await sign({ sub: 'demo-client', res: ['species'], pre: true, ...times }, 'test-signing-secret', 'HS256');
      const { res, body } = await read(t, token);
      expect(res.status, `${JSON.stringify(times)}: ${JSON.stringify(body)}`).toBe(200);
    }
  });

  it('refuses a well-formed credential id no store holds as revoked, not as malformed', async () => {
    const t = testApp();
    const token = await sign(
      { sub: 'demo-client', res: ['species'], pre: true, iat: ISSUED_AT, exp: ISSUED_AT + 900, cid: '0123456789abcdef' },
      'test-signing-secret',
      'HS256',
    );
    const { res, body } = await read(t, token);
    expect(res.status).toBe(401);
    expect(body.detail).toBe('The access token was issued to a client credential that has been revoked.');
  });

  it('carries the client access: a token never reaches beyond its claims', async () => {
    const t = testApp();
    const speciesOnly = await sign({ sub: 'demo-client', iat: ISSUED_AT, exp: ISSUED_AT + 900, res: ['species'], pre: false }, 'test-signing-secret', 'HS256');
    expect((await read(t, speciesOnly, '/v2/species')).res.status).toBe(200);
    expect((await read(t, speciesOnly, '/v2/genus')).body.code).toBe('auth/forbidden');
    expect((await read(t, speciesOnly, '/v3/species')).body.code).toBe('auth/forbidden');
  });
});
