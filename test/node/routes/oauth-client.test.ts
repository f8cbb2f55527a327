/**
 * `POST /oauth/token` in the details a client sees: which spellings of the Basic header and of the
 * media type are accepted, and the `error_description` of each refusal (docs/reference/access.md,
 * RFC 6749 2.3.1, 5.2, RFC 7617).
 */
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/core/crypto';
import { MemoryCredentialStore } from '../../../src/services/credentials/credential-store';
import { DEMO_CREDENTIALS } from '../../../src/services/credentials/demo-credentials';
import { basic, FORM_TYPE, postToken } from '../../suites/tokens';
import { DEMO, json } from '../../suites/client';
import { diskApp } from '../../support/gateway';

const t = diskApp();
const GRANT = 'grant_type=client_credentials';
const NOT_BASIC = 'The Authorization header must be HTTP Basic with the form-encoded client id and secret.';
const UNKNOWN = 'Unknown client or wrong client secret.';

/** `Basic` over raw bytes (a binary string), for headers a client library would not build. */
const basicBytes = (bytes: string) => `Basic ${btoa(bytes)}`;
const creds = `${DEMO.clientId}:${DEMO.clientSecret}`;

async function withAuthorization(authorization: string, body = GRANT, contentType = FORM_TYPE) {
  const res = await postToken(t, body, { 'Content-Type': contentType, Authorization: authorization });
  return { status: res.status, body: await json(res), challenge: res.headers.get('WWW-Authenticate') };
}

describe('POST /oauth/token: spellings of HTTP Basic', { timeout: 120_000 }, () => {
  it.each([
    ['the scheme in lower case', `basic ${btoa(creds)}`],
    ['the scheme in upper case', `BASIC ${btoa(creds)}`],
    ['spaces around the header value and between its parts', `  Basic   ${btoa(creds)}  `],
    // 32 bytes once percent-decoded to 30: base64 with one `=`; 34 bytes: with `==`.
    ['base64 ending in one "="', `Basic ${btoa(`${DEMO.clientId}:%64emo-client-secret`)}`],
    ['base64 ending in "=="', `Basic ${btoa(`%64emo-client:%64emo-client-secret`)}`],
    ['a UTF-8 byte-order mark before the id (dropped, as UTF-8 decoding does)', basicBytes(`\xEF\xBB\xBF${creds}`)],
  ])('accepts %s', async (_name, authorization) => {
    const r = await withAuthorization(authorization);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.token_type).toBe('Bearer');
  });

  it.each([
    ['another scheme ending in "basic"', `NotBasic ${btoa(creds)}`],
    ['text after the credentials', `Basic ${btoa(creds)} extra`],
    ['three "=" of padding', `Basic ${btoa(creds)}===`],
    ['bytes that are not UTF-8 in the id', basicBytes(`demo-client\xFF:${DEMO.clientSecret}`)],
    ['an empty client id', basicBytes(`:${DEMO.clientSecret}`)],
    ['an empty secret', basicBytes(`${DEMO.clientId}:`)],
    ['no colon', basicBytes(DEMO.clientId)],
    ['a character outside base64 right after the credentials', `Basic ${btoa(creds)}!`],
  ])('refuses %s as not HTTP Basic, with the Basic challenge', async (_name, authorization) => {
    const r = await withAuthorization(authorization);
    expect(r.status, JSON.stringify(r.body)).toBe(401);
    expect(r.body).toEqual({ error: 'invalid_client', error_description: NOT_BASIC });
    expect(r.challenge).toBe('Basic realm="botanical", charset="UTF-8"');
  });

  it('refuses a wrong secret by Basic as an unknown client or wrong secret, with the challenge', async () => {
    const r = await withAuthorization(basic(DEMO.clientId, 'wrong'));
    expect(r).toEqual({ status: 401, body: { error: 'invalid_client', error_description: UNKNOWN }, challenge: 'Basic realm="botanical", charset="UTF-8"' });
  });
});

describe('POST /oauth/token: the media type', { timeout: 120_000 }, () => {
  it.each([
    ['in mixed case', 'Application/X-WWW-Form-URLEncoded'],
    ['with spaces before its parameters', `${FORM_TYPE} ; charset=UTF-8`],
    ['with a space before it', ` ${FORM_TYPE}`],
  ])('accepts the form media type %s', async (_name, contentType) => {
    const res = await postToken(t, `${GRANT}&client_id=${DEMO.clientId}&client_secret=${DEMO.clientSecret}`, { 'Content-Type': contentType });
    expect(res.status, await res.clone().text()).toBe(200);
  });

  it('refuses another media type, naming the one expected', async () => {
    const res = await postToken(t, GRANT, { 'Content-Type': 'text/plain' });
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual({ error: 'invalid_request', error_description: `The request body must be ${FORM_TYPE}.` });
  });
});

describe('POST /oauth/token: error descriptions', { timeout: 120_000 }, () => {
  const GOOD = `${GRANT}&client_id=${DEMO.clientId}&client_secret=${DEMO.clientSecret}`;
  it.each([
    ['no grant_type', `client_id=${DEMO.clientId}`, 400, 'invalid_request', 'grant_type is required.'],
    [
      'a long unsupported grant_type, cut at 40 characters',
      `grant_type=${'g'.repeat(39)}XYZ&client_id=${DEMO.clientId}`,
      400,
      'unsupported_grant_type',
      `grant_type ${'g'.repeat(39)}X is not supported; use client_credentials.`,
    ],
    [
      'a long parameter name given twice, cut at 40 characters',
      `${GOOD}&${'p'.repeat(39)}QRS=1&${'p'.repeat(39)}QRS=2`,
      400,
      'invalid_request',
      `${'p'.repeat(39)}Q is given more than once.`,
    ],
    ['no client authentication', GRANT, 401, 'invalid_client', 'Authenticate the client with HTTP Basic or with client_id and client_secret in the body.'],
    [
      'an empty client_id',
      `${GRANT}&client_id=&client_secret=${DEMO.clientSecret}`,
      401,
      'invalid_client',
      'Authenticate the client with HTTP Basic or with client_id and client_secret in the body.',
    ],
    ['no client_secret', `${GRANT}&client_id=${DEMO.clientId}`, 401, 'invalid_client', 'client_secret is required: only confidential clients are supported.'],
    ['a wrong secret', `${GRANT}&client_id=${DEMO.clientId}&client_secret=wrong`, 401, 'invalid_client', UNKNOWN],
    ['an unknown client', `${GRANT}&client_id=nobody&client_secret=${DEMO.clientSecret}`, 401, 'invalid_client', UNKNOWN],
    ['a scope', `${GOOD}&scope=read`, 400, 'invalid_scope', 'This server defines no scopes; omit scope to get the full access of the client.'],
    ['a body over 4 KiB', `${GOOD}&padding=${'x'.repeat(4096)}`, 400, 'invalid_request', 'The request body is larger than 4096 bytes.'],
  ])('%s', async (_name, body, status, error, description) => {
    const res = await postToken(t, body);
    expect(res.status).toBe(status);
    expect(await json(res)).toEqual({ error, error_description: description });
    expect(res.headers.get('WWW-Authenticate')).toBeNull();
  });

  it('accepts a body of exactly 4 KiB and an empty scope, which is an absent one', async () => {
    const base = `${GOOD}&scope=&padding=`;
    const res = await postToken(t, `${base}${'x'.repeat(4096 - base.length)}`);
    expect(res.status, await res.clone().text()).toBe(200);
  });

  it('refuses Basic with client_secret in the body, or a different client_id, as invalid_request', async () => {
    const auth = basic(DEMO.clientId, DEMO.clientSecret);
    const both = await withAuthorization(auth, `${GRANT}&client_secret=${DEMO.clientSecret}`);
    expect(both.status).toBe(400);
    expect(both.body.error_description).toBe('Use one client authentication method: HTTP Basic or client_secret in the body, not both.');
    const other = await withAuthorization(auth, `${GRANT}&client_id=someone-else`);
    expect(other.status).toBe(400);
    expect(other.body.error_description).toBe('client_id in the body differs from the HTTP Basic client id.');
  });
});

describe('POST /oauth/token: a client secret stored with a trailing newline', { timeout: 120_000 }, () => {
  it('is refused, and the log names the client entry (never the secret)', async () => {
    const credentials = new MemoryCredentialStore({
      ...DEMO_CREDENTIALS,
      clients: [{ id: 'echo-client', secret_sha256: await sha256Hex('echo secret\n'), resources: ['species'] }],
    });
    const app = diskApp({ services: { credentials } });
    const res = await postToken(app, `${GRANT}&client_id=echo-client&client_secret=echo+secret`);
    expect(res.status).toBe(401);
    const warnings = app.logs.filter((l) => l.level === 'warn');
    expect(warnings.map((l) => l.entry)).toEqual(['client:echo-client']);
    expect(JSON.stringify(app.logs)).not.toContain('echo secret');

    // A merely wrong secret names nothing.
    await postToken(app, `${GRANT}&client_id=echo-client&client_secret=other`);
    expect(app.logs.filter((l) => l.level === 'warn')).toHaveLength(1);
  });
});

describe('POST /oauth/token: a client secret stored with a trailing newline during a rotation', { timeout: 120_000 }, () => {
  it('is named in the log when it is either of the client’s two secrets', async () => {
    const credentials = new MemoryCredentialStore({
      ...DEMO_CREDENTIALS,
      clients: [
        { id: 'echo-client', secret_sha256: await sha256Hex('new secret'), resources: ['species'] },
        { id: 'echo-client', secret_sha256: await sha256Hex('echo secret\n'), resources: ['species'] },
      ],
    });
    const app = diskApp({ services: { credentials } });
    expect((await postToken(app, `${GRANT}&client_id=echo-client&client_secret=echo+secret`)).status).toBe(401);
    expect(app.logs.filter((l) => l.level === 'warn').map((l) => l.entry)).toEqual(['client:echo-client']);
    expect((await postToken(app, `${GRANT}&client_id=echo-client&client_secret=new+secret`)).status).toBe(200);
  });
});

describe('POST /oauth/token: what counts as a failed client authentication', { timeout: 120_000 }, () => {
  const LIMIT = 2;
  const app = () => diskApp({ env: { TRUST_PROXY: 'true', AUTH_FAILURES_PER_MINUTE: String(LIMIT) } });
  const GOOD = `${GRANT}&client_id=${DEMO.clientId}&client_secret=${DEMO.clientSecret}`;
  const from = (address: string, headers: Record<string, string> = {}) => ({ 'Content-Type': FORM_TYPE, 'X-Forwarded-For': address, ...headers });

  it.each([
    ['no client authentication at all', GRANT, {}, 401],
    ['empty client_id and client_secret (absent ones)', `${GRANT}&client_id=&client_secret=`, {}, 401],
    [
      'Basic together with client_secret in the body (a malformed request)',
      `${GRANT}&client_secret=${DEMO.clientSecret}`,
      { Authorization: basic(DEMO.clientId, DEMO.clientSecret) },
      400,
    ],
  ] as const)('does not count %s: the address is served after more of them than the limit', async (_name, body, headers, status) => {
    const t = app();
    for (let i = 0; i <= LIMIT; i++) expect((await postToken(t, body, from('198.51.100.7', headers))).status).toBe(status);
    const res = await postToken(t, GOOD, from('198.51.100.7'));
    expect(res.status, await res.clone().text()).toBe(200);
  });

  it('notes each refused one on the access line: where the secret was presented, the code and the client named', async () => {
    const t = app();
    await postToken(t, `${GRANT}&client_id=${DEMO.clientId}&client_secret=guess`, from('198.51.100.7'));
    await postToken(t, GRANT, from('198.51.100.8', { Authorization: basic('nobody', 'guess') }));
    expect(t.logs.map((l) => [l.status, l.auth_failure])).toEqual([
      [401, { place: 'oauth:body', code: 'oauth/invalidClient', client_id: DEMO.clientId, source_address: '198.51.100.7' }],
      [401, { place: 'oauth:basic', code: 'oauth/invalidClient', client_id: 'nobody', source_address: '198.51.100.8' }],
    ]);
  });

  it.each([
    ['a client_id without a secret', `${GRANT}&client_id=${DEMO.clientId}`],
    ['a client_secret without a client_id', `${GRANT}&client_secret=${DEMO.clientSecret}`],
  ])('counts %s: the address is throttled past the limit', async (_name, body) => {
    const t = app();
    for (let i = 0; i < LIMIT; i++) expect((await postToken(t, body, from('198.51.100.7'))).status).toBe(401);
    const res = await postToken(t, GOOD, from('198.51.100.7'));
    expect(res.status, await res.clone().text()).toBe(429);
  });

  it('counts wrong secrets by Basic per claimed client, whatever the address', async () => {
    const t = app();
    for (let i = 0; i < LIMIT; i++)
      expect((await postToken(t, GRANT, from(`198.51.100.${10 + i}`, { Authorization: basic(DEMO.clientId, `guess-${i}`) }))).status).toBe(401);
    const refused = await postToken(t, GRANT, from('198.51.100.99', { Authorization: basic(DEMO.clientId, DEMO.clientSecret) }));
    expect(refused.status).toBe(429);
    expect((await json(refused)).error).toBe('slow_down');
    // Another client from that address is served.
    expect((await postToken(t, GRANT, from('198.51.100.99', { Authorization: basic('nobody', 'x') }))).status).toBe(401);
  });
});
