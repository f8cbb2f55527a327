/**
 * The gateway as widely used third-party clients see it, on a real loopback port (docs/reference/access.md and requests.md): two OAuth 2.0 client libraries obtain client-credentials tokens with
 * HTTP Basic and with body client authentication and use them on v2 and v3, and read a wrong
 * secret and an unsupported grant as the errors RFC 6749 names; a parser of RFC 9651 structured
 * fields reads `Deprecation`, `RateLimit` and `RateLimit-Policy`.
 */
import * as openid from 'openid-client';
import { ClientCredentials, ResourceOwnerPassword } from 'simple-oauth2';
import { parseItem, parseList, type Item } from 'structured-headers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeConnection } from '../../../src/node/connection';
import { DEMO, testApp } from '../../support/harness';
import { serveOnLoopback, type LoopbackServer } from '../../support/loopback';

let server: LoopbackServer;
/** One that allows two requests a minute, to see a 429's headers. */
let strict: LoopbackServer;

// Built for each test: a mutation run credits the server's setup only to the tests during which it ran.
beforeEach(async () => {
  server = await serveOnLoopback(testApp({ services: { connection: nodeConnection } }));
  strict = await serveOnLoopback(testApp({ env: { RATE_LIMIT_PER_MINUTE: '2' }, services: { connection: nodeConnection } }));
});
afterEach(async () => {
  await server.close();
  await strict.close();
});

async function readWith(token: string, path: string) {
  const res = await fetch(`${server.origin}${path}`, { headers: { Authorization: `Bearer ${token}` } });
  return { status: res.status, body: await res.json() };
}

/** A token must open v2 and v3 alike, with the same records. */
async function expectUsable(token: string) {
  const v2 = await readWith(token, '/v2/species?q=abies');
  expect(v2.status, JSON.stringify(v2.body)).toBe(200);
  const v3 = await readWith(token, '/v3/species?q=abies');
  expect(v3.status, JSON.stringify(v3.body)).toBe(200);
  expect(v3.body.links.self).toBe('/v3/species?q=abies&page=1');
  expect(v3.body.data).toEqual(v2.body.data);
}

describe('openid-client (client credentials grant)', () => {
  function configuration(auth: openid.ClientAuth): openid.Configuration {
    const metadata = { issuer: server.origin, token_endpoint: `${server.origin}/oauth/token` };
    const config = new openid.Configuration(metadata, DEMO.clientId, undefined, auth);
    // Loopback counts as secure for the gateway; the library must be told plain http is fine here.
    openid.allowInsecureRequests(config);
    return config;
  }

  for (const [name, auth] of [
    ['client_secret_basic', openid.ClientSecretBasic],
    ['client_secret_post', openid.ClientSecretPost],
  ] as const) {
    it(`${name}: a token of 900 s, no refresh token, that reads v2 and v3`, async () => {
      const token = await openid.clientCredentialsGrant(configuration(auth(DEMO.clientSecret)));
      expect(token.token_type).toBe('bearer'); // the library normalises the case
      expect(token.expires_in).toBe(900);
      expect(token.refresh_token).toBeUndefined();
      await expectUsable(token.access_token);
    });

    it(`${name}: a wrong secret is invalid_client, 401`, async () => {
      const error = await openid.clientCredentialsGrant(configuration(auth('wrong-secret'))).catch((e: unknown) => e);
      if (error instanceof openid.WWWAuthenticateChallengeError) {
        // Basic: the challenge names Basic, and the body is still RFC 6749's.
        expect(name).toBe('client_secret_basic');
        expect(error.status).toBe(401);
        expect(error.cause.map((c) => c.scheme)).toEqual(['basic']);
        expect((await error.response.json()).error).toBe('invalid_client');
      } else {
        expect(error).toBeInstanceOf(openid.ResponseBodyError);
        expect((error as openid.ResponseBodyError).error).toBe('invalid_client');
        expect((error as openid.ResponseBodyError).status).toBe(401);
      }
    });
  }

  it('an unsupported grant is unsupported_grant_type, 400', async () => {
    const config = configuration(openid.ClientSecretBasic(DEMO.clientSecret));
    const error = await openid.genericGrantRequest(config, 'password', { username: 'ada', password: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(openid.ResponseBodyError);
    expect((error as openid.ResponseBodyError).error).toBe('unsupported_grant_type');
    expect((error as openid.ResponseBodyError).status).toBe(400);
  });
});

describe('simple-oauth2 (client credentials grant)', () => {
  const options = (authorization: 'header' | 'body', secret: string = DEMO.clientSecret) => ({
    client: { id: DEMO.clientId, secret },
    auth: { tokenHost: server.origin, tokenPath: '/oauth/token' },
    options: { authorizationMethod: authorization, bodyFormat: 'form' as const },
  });

  for (const authorization of ['header', 'body'] as const) {
    it(`client authentication in the ${authorization}: a token that reads v2 and v3`, async () => {
      const token = await new ClientCredentials(options(authorization)).getToken({});
      expect(token.token.token_type).toBe('Bearer');
      expect(token.token.expires_in).toBe(900);
      expect(token.expired()).toBe(false);
      await expectUsable(token.token.access_token as string);
    });

    it(`client authentication in the ${authorization}: a wrong secret is invalid_client, 401`, async () => {
      const error = (await new ClientCredentials(options(authorization, 'wrong-secret')).getToken({}).catch((e: unknown) => e)) as {
        output: { statusCode: number };
        data: { payload: { error: string } };
      };
      expect(error.output.statusCode).toBe(401);
      expect(error.data.payload.error).toBe('invalid_client');
    });
  }

  it('the password grant is unsupported_grant_type, 400', async () => {
    const error = (await new ResourceOwnerPassword(options('header')).getToken({ username: 'ada', password: 'x' }).catch((e: unknown) => e)) as {
      output: { statusCode: number };
      data: { payload: { error: string } };
    };
    expect(error.output.statusCode).toBe(400);
    expect(error.data.payload.error).toBe('unsupported_grant_type');
  });
});

describe('structured fields (RFC 9651)', () => {
  /** `"default";<counter>=<n>;<window>=<n>`: one string item with integer parameters. */
  function expectQuota(value: string | null, counter: 'q' | 'r', window: 'w' | 't') {
    expect(value).not.toBeNull();
    const list = parseList(value!);
    expect(list).toHaveLength(1);
    const [name, params] = list[0] as Item;
    expect(name).toBe('default');
    expect(Number.isInteger(params.get(counter)), `${counter} in ${value}`).toBe(true);
    expect(Number.isInteger(params.get(window)), `${window} in ${value}`).toBe(true);
    return params;
  }

  for (const [path, headers] of [
    ['/v2/species/ABBA', { Authorization: DEMO.key }],
    ['/v1/species/ABBA', { 'X-Api-Key': 'demo-project-key' }],
  ] as const) {
    it(`${path}: RateLimit and RateLimit-Policy parse as lists of parameterised strings`, async () => {
      const res = await fetch(`${server.origin}${path}`, { headers });
      expect(res.status).toBe(200);
      const policy = expectQuota(res.headers.get('ratelimit-policy'), 'q', 'w');
      const limit = expectQuota(res.headers.get('ratelimit'), 'r', 't');
      expect(limit.get('r')).toBeLessThan(policy.get('q') as number);
      await res.body?.cancel();
    });
  }

  it('a 429: RateLimit with nothing remaining, and Retry-After', async () => {
    let res: Response | undefined;
    for (let i = 0; i < 3; i++) {
      await res?.body?.cancel();
      res = await fetch(`${strict.origin}/v2/species/ABBA`, { headers: { Authorization: DEMO.personalToken } });
    }
    expect(res!.status).toBe(429);
    expect(expectQuota(res!.headers.get('ratelimit'), 'r', 't').get('r')).toBe(0);
    expect(Number(res!.headers.get('retry-after'))).toBeGreaterThan(0);
    await res!.body?.cancel();
  });

  it('v1 Deprecation is a Date item (@<unix seconds>), on answers and on errors', async () => {
    for (const path of ['/v1/species/ABBA', '/v1/species/ZZNONE']) {
      const res = await fetch(`${server.origin}${path}`, { headers: { 'X-Key': 'demo-project-key' } });
      const [value] = parseItem(res.headers.get('deprecation')!);
      expect(value, path).toBeInstanceOf(Date);
      expect((value as Date).toISOString()).toBe('2026-01-01T00:00:00.000Z');
      await res.body?.cancel();
    }
  });
});

describe('the token endpoint on a real socket', () => {
  it('refuses an oversize body announced by Content-Length', async () => {
    const body = `grant_type=client_credentials&client_id=${DEMO.clientId}&client_secret=${DEMO.clientSecret}&pad=${'x'.repeat(8192)}`;
    const res = await server.send('POST', '/oauth/token', { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': String(body.length) }, body);
    expect(res.status, res.body).toBe(400);
    expect(JSON.parse(res.body).error).toBe('invalid_request');
  });
});
