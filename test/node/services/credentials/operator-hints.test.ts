import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../../src/core/crypto';
import { MemoryCredentialStore, parseCredentialDocument } from '../../../../src/services/credentials/credential-store';
import { DEMO, json, testApp } from '../../../support/harness';

/** A plain-HTTP request as a TLS-terminating proxy forwards it (the harness's URL scheme is the connection's). */
const proxied = { Authorization: DEMO.key, 'X-Forwarded-Proto': 'https' };
const hints = (logs: Array<Record<string, unknown>>) => logs.filter((l) => l.level === 'warn' && String(l.message).includes('TRUST_PROXY'));

describe('a TLS proxy in front without TRUST_PROXY is named in the log (docs/reference/requests.md)', () => {
  it('logs one hint naming TRUST_PROXY per minute on the 426 answers, by the injected clock', async () => {
    const t = testApp();
    expect((await t.get('http://gateway.example/v2/species', proxied)).status).toBe(426);
    expect((await t.get('http://gateway.example/v2/genus', proxied)).status).toBe(426);
    expect(hints(t.logs)).toHaveLength(1);
    expect(hints(t.logs)[0]!.message).toMatch(/set TRUST_PROXY=true/);
    t.clock.advance(59_999);
    await t.get('http://gateway.example/v2/species', proxied);
    expect(hints(t.logs)).toHaveLength(1);
    t.clock.advance(1);
    await t.get('http://gateway.example/v2/species', proxied);
    expect(hints(t.logs)).toHaveLength(2);
  });

  it('logs it on the 301 redirects before the cut-off too', async () => {
    const t = testApp({ now: '2026-05-01T00:00:00Z' });
    const res = await t.get('http://gateway.example/v2/species', proxied);
    expect(res.status).toBe(301);
    expect(hints(t.logs)).toHaveLength(1);
  });

  it.each([
    ['plain HTTP without X-Forwarded-Proto', 'http://gateway.example/v2/species', { Authorization: DEMO.key }, {}, 426],
    ['a proxy saying http', 'http://gateway.example/v2/species', { Authorization: DEMO.key, 'X-Forwarded-Proto': 'http' }, {}, 426],
    ['a trusted proxy saying https', 'http://gateway.example/v2/species', proxied, { TRUST_PROXY: 'true' }, 200],
    ['a health check through the proxy', 'http://gateway.example/healthz', proxied, {}, 200],
  ])('gives no hint for %s', async (_name, url, headers, env, status) => {
    const t = testApp({ env });
    expect((await t.get(url, headers)).status).toBe(status);
    expect(hints(t.logs)).toEqual([]);
  });
});

describe('a digest made with `echo` (a trailing newline) is named in the log, and the request still refused', () => {
  const secrets = { key: 'acme-key-1234', token: 'ada-token-5678', client: 'acme-ci-secret' };
  async function gateway() {
    const newline = async (s: string) => sha256Hex(`${s}\n`);
    const credentials = new MemoryCredentialStore(
      parseCredentialDocument({
        projects: [{ id: 'acme', key_sha256: await newline(secrets.key), resources: '*' }],
        personal_tokens: [{ member: 'ada', token_sha256: await newline(secrets.token), resources: '*' }],
        clients: [{ id: 'acme-ci', secret_sha256: await newline(secrets.client), resources: '*' }],
      }),
    );
    return testApp({ services: { credentials } });
  }
  const warnings = (logs: Array<Record<string, unknown>>) => logs.filter((l) => l.level === 'warn' && String(l.message).includes('trailing newline'));

  it.each([
    ['an API key', '/v2/species', { Authorization: `ApiKey ${secrets.key}` }, 'project:acme'],
    ['a personal token', '/v2/species', { Authorization: `Bearer ${secrets.token}` }, 'member:ada'],
    ['a v1 x-api-key', '/v1/species', { 'x-api-key': secrets.key }, 'project:acme'],
    ['a v1 ?token=', `/v1/species?token=${secrets.token}`, {}, 'member:ada'],
  ])('%s', async (_name, path, headers, entry) => {
    const t = await gateway();
    const res = await t.get(path, headers);
    expect(res.status).toBe(401);
    const [warning, ...more] = warnings(t.logs);
    expect(more).toEqual([]);
    expect(warning).toMatchObject({ entry });
    expect(warning!.message).toMatch(/printf %s/);
    expect(JSON.stringify(t.logs)).not.toContain(secrets.key);
    expect(JSON.stringify(t.logs)).not.toContain(secrets.token);
  });

  it('an OAuth client secret', async () => {
    const t = await gateway();
    const res = await t.app.request('https://localhost/oauth/token', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'acme-ci', client_secret: secrets.client }).toString(),
    });
    expect(res.status).toBe(401);
    expect((await json(res)).error).toBe('invalid_client');
    expect(warnings(t.logs).map((w) => w.entry)).toEqual(['client:acme-ci']);
    expect(JSON.stringify(t.logs)).not.toContain(secrets.client);
  });

  it('says nothing for a secret that is simply wrong', async () => {
    const t = await gateway();
    expect((await t.get('/v2/species', { Authorization: 'ApiKey not-the-key' })).status).toBe(401);
    expect((await t.get('/v2/species', { Authorization: 'Bearer not-the-token' })).status).toBe(401);
    expect(warnings(t.logs)).toEqual([]);
  });
});
