/**
 * `POST /oauth/token` as a client sees it (docs/reference/access.md, RFC 6749 4.4, 5.1, 5.2).
 * Mints at most three tokens, well under the per-client token limit of one minute.
 */
import { describe, expect, it } from 'vitest';
import { DEMO, json, type SuiteClient } from './client';
import { basic, FORM_TYPE, postToken } from './tokens';

const GOOD = `grant_type=client_credentials&client_id=${DEMO.clientId}&client_secret=${DEMO.clientSecret}`;
/** RFC 6749 5.2: `error_description` is printable ASCII without `"` and `\`. */
const DESCRIPTION_CHARS = /^[\x20\x21\x23-\x5B\x5D-\x7E]+$/;

interface ErrorRow {
  name: string;
  body: string;
  headers?: Record<string, string>;
  status: number;
  error: string;
}

const form = { 'Content-Type': FORM_TYPE };
const ERROR_ROWS: ErrorRow[] = [
  { name: 'no grant_type', body: `client_id=${DEMO.clientId}&client_secret=${DEMO.clientSecret}`, status: 400, error: 'invalid_request' },
  { name: 'an empty grant_type', body: `grant_type=&client_id=${DEMO.clientId}&client_secret=${DEMO.clientSecret}`, status: 400, error: 'invalid_request' },
  { name: 'grant_type twice', body: `${GOOD}&grant_type=client_credentials`, status: 400, error: 'invalid_request' },
  {
    name: 'the password grant',
    body: `grant_type=password&username=a&password=b&client_id=${DEMO.clientId}&client_secret=${DEMO.clientSecret}`,
    status: 400,
    error: 'unsupported_grant_type',
  },
  {
    name: 'the authorization code grant',
    body: `grant_type=authorization_code&code=x&client_id=${DEMO.clientId}&client_secret=${DEMO.clientSecret}`,
    status: 400,
    error: 'unsupported_grant_type',
  },
  { name: 'no client authentication at all', body: 'grant_type=client_credentials', status: 401, error: 'invalid_client' },
  { name: 'client_id without client_secret', body: `grant_type=client_credentials&client_id=${DEMO.clientId}`, status: 401, error: 'invalid_client' },
  {
    name: 'a wrong secret in the body',
    body: `grant_type=client_credentials&client_id=${DEMO.clientId}&client_secret=wrong`,
    status: 401,
    error: 'invalid_client',
  },
  {
    name: 'an unknown client',
    body: `grant_type=client_credentials&client_id=nobody&client_secret=${DEMO.clientSecret}`,
    status: 401,
    error: 'invalid_client',
  },
  {
    name: 'a wrong secret by Basic',
    body: 'grant_type=client_credentials',
    headers: { ...form, Authorization: basic(DEMO.clientId, 'wrong') },
    status: 401,
    error: 'invalid_client',
  },
  {
    name: 'Basic that is not base64',
    body: 'grant_type=client_credentials',
    headers: { ...form, Authorization: 'Basic %%%' },
    status: 401,
    error: 'invalid_client',
  },
  {
    name: 'Basic without a colon',
    body: 'grant_type=client_credentials',
    headers: { ...form, Authorization: `Basic ${btoa(DEMO.clientId)}` },
    status: 401,
    error: 'invalid_client',
  },
  {
    name: 'a Bearer header instead of client authentication',
    body: 'grant_type=client_credentials',
    headers: { ...form, Authorization: 'Bearer abc' },
    status: 401,
    error: 'invalid_client',
  },
  {
    name: 'Basic and client_secret in the body at once',
    body: `grant_type=client_credentials&client_secret=${DEMO.clientSecret}`,
    headers: { ...form, Authorization: basic(DEMO.clientId, DEMO.clientSecret) },
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'Basic with a different client_id in the body',
    body: 'grant_type=client_credentials&client_id=someone-else',
    headers: { ...form, Authorization: basic(DEMO.clientId, DEMO.clientSecret) },
    status: 400,
    error: 'invalid_request',
  },
  { name: 'a scope (none is defined)', body: `${GOOD}&scope=read`, status: 400, error: 'invalid_scope' },
  {
    name: 'a JSON body',
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: DEMO.clientId, client_secret: DEMO.clientSecret }),
    headers: { 'Content-Type': 'application/json' },
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'a multipart body',
    body: '--x\r\nContent-Disposition: form-data; name="grant_type"\r\n\r\nclient_credentials\r\n--x--\r\n',
    headers: { 'Content-Type': 'multipart/form-data; boundary=x' },
    status: 400,
    error: 'invalid_request',
  },
  { name: 'no Content-Type', body: GOOD, headers: {}, status: 400, error: 'invalid_request' },
  { name: 'a body over 4 KiB', body: `${GOOD}&padding=${'x'.repeat(5000)}`, status: 400, error: 'invalid_request' },
];

export function oauthSuite(client: () => SuiteClient): void {
  describe('POST /oauth/token: client credentials grant', () => {
    it('issues a Bearer token for client_id and client_secret in the form body (RFC 6749 5.1)', async () => {
      const res = await postToken(client(), GOOD);
      const body = await json(res);
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(res.headers.get('Content-Type')).toMatch(/^application\/json/);
      expect(res.headers.get('Cache-Control')).toBe('no-store');
      expect(res.headers.get('Pragma')).toBe('no-cache');
      expect(res.headers.get('Svc-Request-Id')).toBeTruthy();
      expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
      expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 900 });

      const read = await client().get('/v2/species?q=abies', { Authorization: `Bearer ${body.access_token}` });
      expect(read.status, await read.clone().text()).toBe(200);
    });

    it('issues a token for HTTP Basic client authentication, with a charset on the media type', async () => {
      const headers = { 'Content-Type': `${FORM_TYPE}; charset=UTF-8`, Authorization: basic(DEMO.clientId, DEMO.clientSecret) };
      const res = await postToken(client(), 'grant_type=client_credentials', headers);
      const body = await json(res);
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 900 });
      expect(res.headers.get('Cache-Control')).toBe('no-store');
    });

    it('accepts Basic together with the same client_id in the body (RFC 6749 3.2.1)', async () => {
      const headers = { ...form, Authorization: basic(DEMO.clientId, DEMO.clientSecret) };
      const res = await postToken(client(), `grant_type=client_credentials&client_id=${DEMO.clientId}`, headers);
      expect(res.status, await res.text()).toBe(200);
    });

    for (const row of ERROR_ROWS) {
      it(`answers ${row.status} ${row.error} for ${row.name}`, async () => {
        const res = await postToken(client(), row.body, row.headers ?? form);
        const body = await json(res);
        const shown = `${res.status} ${JSON.stringify(body)}`;
        expect(res.status, shown).toBe(row.status);
        expect(res.headers.get('Content-Type'), shown).toMatch(/^application\/json/);
        expect(body.error, shown).toBe(row.error);
        expect(body.error_description, shown).toMatch(DESCRIPTION_CHARS);
        expect(body.access_token, shown).toBeUndefined();
        expect(res.headers.get('Svc-Request-Id'), shown).toBeTruthy();
        // RFC 6749 5.2: a client that tried the Authorization header is challenged with Basic.
        if (row.status === 401 && row.headers?.Authorization) expect(res.headers.get('WWW-Authenticate'), shown).toMatch(/^Basic realm="[^"]+"/);
        else expect(res.headers.get('WWW-Authenticate'), shown).toBeNull();
      });
    }

    for (const method of ['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      it(`answers ${method} with 405 and Allow: POST`, async () => {
        const res = await client().get('/oauth/token', { Origin: 'https://app.example' }, { method });
        const text = await res.text();
        expect(res.status, text).toBe(405);
        expect(res.headers.get('Allow')).toBe('POST');
        expect(res.headers.get('Svc-Request-Id')).toBeTruthy();
        if (method !== 'HEAD') expect(JSON.parse(text)).toMatchObject({ status: 405, code: 'svc/methodNotAllowed' });
        // No CORS on the token endpoint: browsers must not hold client secrets.
        expect(res.headers.get('Access-Control-Allow-Origin')).toBeNull();
      });
    }

    it('is not readable cross-origin: a browser POST gets no CORS headers', async () => {
      const res = await postToken(client(), `grant_type=client_credentials&client_id=${DEMO.clientId}&client_secret=wrong`, {
        ...form,
        Origin: 'https://app.example',
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('Access-Control-Allow-Origin')).toBeNull();
    });
  });
}
