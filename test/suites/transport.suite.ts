/**
 * The transport policy as a client sees it (docs/reference/requests.md), where the request URL's scheme
 * and host are all the runtime shows (in-process on Node, and Workers). Absolute `http://` URLs
 * are plain-HTTP requests; `https://` ones arrived over TLS.
 */
import { describe, expect, it } from 'vitest';
import { DEMO, json, type SuiteClient } from './client';

/** The suite's own cut-off, passed as `HTTPS_REDIRECT_UNTIL`, so it does not rely on the default. */
export const CUTOFF = '2026-08-31T00:00:00Z';
export const BEFORE_CUTOFF = '2026-08-30T23:59:59.999Z';
export const AFTER_CUTOFF = '2026-11-21T12:00:00Z';

/** A gateway standing at `now`, with the given configuration variables. */
export interface TransportSetup {
  now: string;
  env: Record<string, string>;
}

const PLAIN = 'http://api.example.com';
/** Encoded brackets, an encoded accent and `+`: the redirect must keep the query byte for byte. */
const QUERY = '?q=caf%C3%A9+au+lait&order%5Bscientific_name%5D=desc&page=2';

export function transportSuite(clientAt: (setup: TransportSetup) => SuiteClient): void {
  const at = (now: string, env: Record<string, string> = {}) => clientAt({ now, env: { HTTPS_REDIRECT_UNTIL: CUTOFF, ...env } });

  describe('transport: plain HTTP before the cut-off is redirected', () => {
    const redirects: Array<{ method: string; url: string; status: number; headers?: Record<string, string> }> = [
      { method: 'GET', url: `${PLAIN}/v2/species${QUERY}`, status: 301 },
      { method: 'HEAD', url: `${PLAIN}/v2/species${QUERY}`, status: 301 },
      { method: 'GET', url: `${PLAIN}/v2/species${QUERY}`, status: 301, headers: { Authorization: DEMO.key } },
      { method: 'GET', url: `${PLAIN}/v3/species`, status: 301 },
      { method: 'GET', url: `${PLAIN}/no/such/path?x=1`, status: 301 },
      { method: 'POST', url: `${PLAIN}/oauth/token`, status: 308 },
      { method: 'DELETE', url: `${PLAIN}/v2/species/ABBA`, status: 308 },
      { method: 'GET', url: 'http://api.example.com:8080/v2/species', status: 301 },
      // A forwarded host from an untrusted caller must not steer the redirect elsewhere.
      { method: 'GET', url: `${PLAIN}/v2/species`, status: 301, headers: { 'X-Forwarded-Host': 'evil.example' } },
    ];
    for (const row of redirects) {
      it(`${row.method} ${row.url} ${row.headers ? JSON.stringify(row.headers) : 'without credentials'} -> ${row.status} to https`, async () => {
        const res = await at(BEFORE_CUTOFF).get(row.url, row.headers ?? {}, { method: row.method, redirect: 'manual' });
        const text = await res.text();
        expect(res.status, text).toBe(row.status);
        expect(res.headers.get('Location')).toBe(`https${row.url.slice('http'.length)}`);
        expect(res.headers.get('Svc-Request-Id')).toBeTruthy();
        expect(res.headers.get('WWW-Authenticate')).toBeNull();
        expect(res.headers.get('Strict-Transport-Security')).toBeNull();
        expect(text).not.toContain('"data"');
      });
    }
  });

  describe('transport: plain HTTP from the cut-off on is refused with 426', () => {
    for (const now of [CUTOFF, AFTER_CUTOFF]) {
      for (const headers of [{}, { Authorization: DEMO.key }] as Array<Record<string, string>>) {
        it(`at ${now}, ${Object.keys(headers).length ? 'with' : 'without'} a credential: 426 svc/httpsRequired, not 401 and no data`, async () => {
          const res = await at(now).get(`${PLAIN}/v2/species${QUERY}`, headers, { redirect: 'manual' });
          const body = await json(res);
          expect(res.status, JSON.stringify(body)).toBe(426);
          expect(res.headers.get('Content-Type')).toBe('application/problem+json');
          expect(body).toMatchObject({ status: 426, code: 'svc/httpsRequired' });
          expect(body.data).toBeUndefined();
          expect(res.headers.get('Upgrade')).toBe('TLS/1.2, HTTP/1.1');
          expect(res.headers.get('Location')).toBeNull();
          expect(res.headers.get('Svc-Request-Id')).toBeTruthy();
          expect(body.instance).toBe(`urn:botanical:request:${res.headers.get('Svc-Request-Id')}`);
        });
      }
    }

    it('refuses a token request too (the secret must not travel in clear)', async () => {
      const res = await at(AFTER_CUTOFF).get(
        `${PLAIN}/oauth/token`,
        { 'Content-Type': 'application/x-www-form-urlencoded' },
        {
          method: 'POST',
          body: `grant_type=client_credentials&client_id=${DEMO.clientId}&client_secret=${DEMO.clientSecret}`,
        },
      );
      const body = await json(res);
      expect(res.status, JSON.stringify(body)).toBe(426);
      expect(body.access_token).toBeUndefined();
    });

    for (const now of [BEFORE_CUTOFF, AFTER_CUTOFF]) {
      it(`exempts GET /healthz at ${now}`, async () => {
        const res = await at(now).get(`${PLAIN}/healthz`, {}, { redirect: 'manual' });
        expect(res.status, await res.text()).toBe(200);
      });
    }
  });

  describe('transport: what counts as https', () => {
    const rows: Array<{ name: string; url: string; headers?: Record<string, string>; env?: Record<string, string>; secure: boolean }> = [
      { name: 'an https URL', url: 'https://api.example.com/v2/species', secure: true },
      { name: 'a localhost URL (local development)', url: 'http://localhost:8787/v2/species', secure: true },
      { name: 'a 127.0.0.1 URL', url: 'http://127.0.0.1:8787/v2/species', secure: true },
      { name: 'an [::1] URL', url: 'http://[::1]:8787/v2/species', secure: true },
      { name: 'a plain URL', url: `${PLAIN}/v2/species`, secure: false },
      { name: 'a plain URL whose host merely starts with localhost', url: 'http://localhost.example.com/v2/species', secure: false },
      {
        name: 'X-Forwarded-Proto https behind a trusted proxy',
        url: `${PLAIN}/v2/species`,
        headers: { 'X-Forwarded-Proto': 'https' },
        env: { TRUST_PROXY: 'true' },
        secure: true,
      },
      { name: 'X-Forwarded-Proto https without TRUST_PROXY', url: `${PLAIN}/v2/species`, headers: { 'X-Forwarded-Proto': 'https' }, secure: false },
      {
        name: 'X-Forwarded-Proto http behind a trusted proxy',
        url: `${PLAIN}/v2/species`,
        headers: { 'X-Forwarded-Proto': 'http' },
        env: { TRUST_PROXY: 'true' },
        secure: false,
      },
      {
        name: 'a proxy chain whose last hop says http',
        url: `${PLAIN}/v2/species`,
        headers: { 'X-Forwarded-Proto': 'https, http' },
        env: { TRUST_PROXY: 'true' },
        secure: false,
      },
      {
        name: 'a proxy chain whose last hop says https',
        url: `${PLAIN}/v2/species`,
        headers: { 'X-Forwarded-Proto': 'http, https' },
        env: { TRUST_PROXY: 'true' },
        secure: true,
      },
      {
        name: 'a localhost URL with X-Forwarded-Proto http (a proxy, trusted)',
        url: 'http://localhost:8787/v2/species',
        headers: { 'X-Forwarded-Proto': 'http' },
        env: { TRUST_PROXY: 'true' },
        secure: false,
      },
      {
        name: 'a localhost URL with X-Forwarded-Proto https (a proxy, not trusted)',
        url: 'http://localhost:8787/v2/species',
        headers: { 'X-Forwarded-Proto': 'https' },
        secure: false,
      },
      {
        name: 'TLS, whatever X-Forwarded-Proto says',
        url: 'https://api.example.com/v2/species',
        headers: { 'X-Forwarded-Proto': 'http' },
        env: { TRUST_PROXY: 'true' },
        secure: true,
      },
    ];
    for (const row of rows) {
      it(`${row.name}: ${row.secure ? '200 with HSTS' : '426'}`, async () => {
        const res = await at(AFTER_CUTOFF, row.env).get(row.url, { Authorization: DEMO.key, ...row.headers }, { redirect: 'manual' });
        const text = await res.text();
        expect(res.status, text).toBe(row.secure ? 200 : 426);
        const hsts = res.headers.get('Strict-Transport-Security');
        if (row.secure) expect(hsts).toMatch(/^max-age=\d{7,}/);
        else expect(hsts).toBeNull();
      });
    }

    it('marks secure error responses with HSTS too', async () => {
      const res = await at(AFTER_CUTOFF).get('https://api.example.com/v2/species', {});
      expect(res.status).toBe(401);
      expect(res.headers.get('Strict-Transport-Security')).toMatch(/^max-age=/);
    });
  });
}
