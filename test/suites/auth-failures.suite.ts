/**
 * Failed authentication as a client sees it (docs/reference/requests.md), with a limit of 3 per minute:
 * counted per source address and per OAuth client, in any credential place and version; past the
 * limit, 429 before the secret is checked; other addresses and clients are not affected.
 * The runtime says how a request names its source address (`from`).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { DEMO, json, type SuiteClient } from './client';
import { basic, FORM_TYPE, postToken } from './tokens';

export const AUTH_FAILURE_LIMIT = 3;

export interface AuthFailureSetup {
  /** A gateway with `AUTH_FAILURES_PER_MINUTE` = 3, its failure counts shared by every call. */
  client(): SuiteClient;
  /** The headers by which a request comes from `address` on this runtime. */
  from(address: string): Record<string, string>;
}

/** Windows turn at whole minutes (the Durable Object keeps real time): count well inside one. */
async function awayFromMinuteEdge(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 3_000) await new Promise((resolve) => setTimeout(resolve, left + 100));
}

export function authFailureSuite(setup: () => AuthFailureSetup): void {
  // Addresses and client ids new to every run, so counts kept by a shared limiter never meet.
  const run = Math.floor(Math.random() * 0xffff).toString(16);
  let n = 0;
  const address = () => `2001:db8:${run}::${(++n).toString(16)}`;

  describe('failed authentication is throttled', () => {
    let s: AuthFailureSetup;
    let gateway: SuiteClient;
    beforeEach(async () => {
      await awayFromMinuteEdge();
      s = setup();
      gateway = s.client();
    });
    const species = (from: string, headers: Record<string, string>, path = '/v2/species') => gateway.get(path, { ...s.from(from), ...headers });

    it('per address: past the limit a wrong and a right key both get 429 with Retry-After; other addresses are served', async () => {
      const guesser = address();
      for (let i = 0; i < AUTH_FAILURE_LIMIT; i++) {
        const res = await species(guesser, { Authorization: `ApiKey guess-${i}` });
        expect(res.status, await res.text()).toBe(401);
      }
      for (const key of ['ApiKey guess-more', DEMO.key]) {
        const res = await species(guesser, { Authorization: key });
        const body = await json(res);
        expect(res.status, JSON.stringify(body)).toBe(429);
        expect(res.headers.get('Content-Type')).toBe('application/problem+json');
        expect(body).toMatchObject({ status: 429, code: 'svc/tooManyRequests' });
        expect(body.data).toBeUndefined();
        const retryAfter = Number(res.headers.get('Retry-After'));
        expect(retryAfter, res.headers.get('Retry-After') ?? 'no Retry-After').toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(60);
      }
      const other = address();
      expect((await species(other, { Authorization: DEMO.key })).status).toBe(200);
      expect((await species(other, { Authorization: 'ApiKey one-guess' })).status).toBe(401);
    });

    it('lets a credential that authenticated within the window through a throttled address; an unknown one is refused', async () => {
      const shared = address();
      // A good caller behind the address (a NAT, a proxy) is served before a guesser starts there.
      expect((await species(shared, { Authorization: DEMO.key })).status).toBe(200);
      for (let i = 0; i < AUTH_FAILURE_LIMIT; i++) expect((await species(shared, { Authorization: `ApiKey guess-${i}` })).status).toBe(401);
      expect((await species(shared, { Authorization: 'ApiKey guess-more' })).status, 'the guesser').toBe(429);
      const kept = await species(shared, { Authorization: DEMO.key });
      expect(kept.status, await kept.text()).toBe(200);
      // The same secret in a legacy place is the same known credential.
      expect((await species(shared, {}, '/v1/species?key=demo-project-key')).status).toBe(200);
      // A valid key not seen within the window is not known good: the address's limit applies to it.
      expect((await species(shared, { Authorization: DEMO.speciesOnlyKey })).status).toBe(429);
    });

    it('at /oauth/token, a client that authenticated within the window is served from a throttled address', async () => {
      const shared = address();
      const token = (body: string) => postToken(gateway, body, { 'Content-Type': FORM_TYPE, ...s.from(shared) });
      const right = `grant_type=client_credentials&client_id=${DEMO.clientId}&client_secret=${DEMO.clientSecret}`;
      expect((await token(right)).status).toBe(200);
      for (let i = 0; i < AUTH_FAILURE_LIMIT; i++)
        expect((await token(`grant_type=client_credentials&client_id=nobody-${run}&client_secret=g-${i}`)).status).toBe(401);
      expect((await token(`grant_type=client_credentials&client_id=nobody-${run}&client_secret=more`)).status).toBe(429);
      const again = await token(right);
      expect(again.status, await again.text()).toBe(200);
    });

    it('counts every place and version together, and answers v1 in its own shape', async () => {
      const guesser = address();
      const attempts: Array<[string, Record<string, string>]> = [
        ['/v1/species?key=guess', {}],
        ['/v1/species', { 'X-Api-Key': 'guess' }],
        ['/v2/species', { Authorization: 'Bearer not-a-token' }],
      ];
      for (const [path, headers] of attempts) {
        const res = await species(guesser, headers, path);
        expect(res.status, `${path} ${JSON.stringify(headers)}: ${await res.text()}`).toBe(401);
      }
      const res = await species(guesser, {}, '/v1/species?key=demo-project-key');
      const body = await json(res);
      expect(res.status, JSON.stringify(body)).toBe(429);
      expect(body).toEqual({ statusCode: 429, message: expect.stringMatching(/failed authentications/) });
      expect(Number(res.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1);
    });

    it('does not count requests without a credential', async () => {
      const caller = address();
      for (let i = 0; i <= AUTH_FAILURE_LIMIT; i++) expect((await species(caller, {})).status).toBe(401);
      expect((await species(caller, { Authorization: DEMO.key })).status).toBe(200);
    });

    it('at /oauth/token: per address and per client_id, 429 slow_down in the OAuth shape without the secret being checked', async () => {
      const guesser = address();
      const elsewhere = address();
      const guessed = `no-such-client-${run}`;
      const token = (from: string, body: string, headers: Record<string, string> = {}) =>
        postToken(gateway, body, { 'Content-Type': FORM_TYPE, ...s.from(from), ...headers });
      for (let i = 0; i < AUTH_FAILURE_LIMIT; i++) {
        const res = await token(guesser, `grant_type=client_credentials&client_id=${guessed}&client_secret=guess-${i}`);
        expect(res.status, await res.text()).toBe(401);
      }
      // The address is past the limit: even the demo client's right secret is not looked at.
      const right = `grant_type=client_credentials&client_id=${DEMO.clientId}&client_secret=${DEMO.clientSecret}`;
      const refused = await token(guesser, right);
      const body = await json(refused);
      expect(refused.status, JSON.stringify(body)).toBe(429);
      expect(refused.headers.get('Content-Type')).toMatch(/^application\/json/);
      expect(body).toMatchObject({ error: 'slow_down', error_description: expect.stringMatching(/from this address/) });
      expect(body.access_token).toBeUndefined();
      expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1);
      // The client is past the limit too, from any address, by Basic as by the body.
      const byClient = await token(elsewhere, 'grant_type=client_credentials', { Authorization: basic(guessed, 'another-guess') });
      const clientBody = await json(byClient);
      expect(byClient.status, JSON.stringify(clientBody)).toBe(429);
      expect(clientBody).toMatchObject({ error: 'slow_down', error_description: expect.stringMatching(/for this client/) });
      // Another client from another address is served.
      const served = await token(elsewhere, right);
      expect(served.status, await served.text()).toBe(200);
    });
  });
}
