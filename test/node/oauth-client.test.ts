/**
 * A stock OAuth 2.0 client library (oauth4webapi) against the gateway served by the Node entry's
 * server on a real loopback port: the token endpoint must speak standard OAuth, not just our tests.
 */
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeConnection } from '../../src/node';
import { DEMO, testApp } from '../support/harness';
import { serveOnLoopback, type LoopbackServer } from '../support/loopback';

let server: LoopbackServer;

beforeAll(async () => {
  server = await serveOnLoopback(testApp({ services: { connection: nodeConnection } }));
});
afterAll(() => server.close());

/** Loopback counts as secure for the gateway; the library needs to be told plain http is fine here. */
const insecure = { [oauth.allowInsecureRequests]: true };

function endpoint(): oauth.AuthorizationServer {
  return { issuer: server.origin, token_endpoint: `${server.origin}/oauth/token` };
}

async function grant(auth: oauth.ClientAuth, secretClient = DEMO.clientId) {
  const as = endpoint();
  const client: oauth.Client = { client_id: secretClient };
  const response = await oauth.clientCredentialsGrantRequest(as, client, auth, new URLSearchParams(), insecure);
  return oauth.processClientCredentialsResponse(as, client, response);
}

async function readWith(token: string, path: string) {
  const res = await fetch(`${server.origin}${path}`, { headers: { Authorization: `Bearer ${token}` } });
  return { status: res.status, body: await res.json() };
}

describe('oauth4webapi client credentials grant over loopback HTTP', () => {
  for (const [name, auth] of [
    ['client_secret_post', () => oauth.ClientSecretPost(DEMO.clientSecret)],
    ['client_secret_basic', () => oauth.ClientSecretBasic(DEMO.clientSecret)],
  ] as const) {
    it(`obtains a token with ${name} and reads /v2 and /v3 with it`, async () => {
      const token = await grant(auth());
      expect(token.token_type).toBe('bearer'); // the library normalises the case
      expect(token.expires_in).toBe(900);
      expect(token.refresh_token).toBeUndefined();

      const v2 = await readWith(token.access_token, '/v2/species?q=abies');
      expect(v2.status, JSON.stringify(v2.body)).toBe(200);
      expect(v2.body.links.self).toBe('/v2/species?q=abies&page=1');
      const v3 = await readWith(token.access_token, '/v3/species?q=abies');
      expect(v3.status, JSON.stringify(v3.body)).toBe(200);
      expect(v3.body.links.self).toBe('/v3/species?q=abies&page=1');
      expect(v3.body.data).toEqual(v2.body.data);
    });
  }

  it('surfaces a wrong form secret as a parsed invalid_client error', async () => {
    const error = await grant(oauth.ClientSecretPost('wrong-secret')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(oauth.ResponseBodyError);
    expect((error as oauth.ResponseBodyError).error).toBe('invalid_client');
    expect((error as oauth.ResponseBodyError).status).toBe(401);
  });

  it('surfaces a wrong Basic secret as the Basic challenge, with the invalid_client body', async () => {
    const error = await grant(oauth.ClientSecretBasic('wrong-secret')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    const challenge = error as oauth.WWWAuthenticateChallengeError;
    expect(challenge.status).toBe(401);
    expect(challenge.cause.map((c) => [c.scheme, c.parameters.realm])).toEqual([['basic', 'botanical']]);
    expect((await challenge.response.json()).error).toBe('invalid_client');
  });

  it('refuses an oversize body announced by Content-Length on a real socket', async () => {
    const body = `grant_type=client_credentials&client_id=${DEMO.clientId}&client_secret=${DEMO.clientSecret}&pad=${'x'.repeat(8192)}`;
    const res = await server.send('POST', '/oauth/token', { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': String(body.length) }, body);
    expect(res.status, res.body).toBe(400);
    expect(JSON.parse(res.body).error).toBe('invalid_request');
  });
});
