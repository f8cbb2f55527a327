import { createExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/core/crypto';
import { RESOURCE_NAMES } from '../../src/core/resources';
import { ManualClock } from '../../src/services/clock';
import { PRINCIPAL_SECONDS } from '../../src/services/credentials/cached-credential-store';
import { KvCredentialStore, kvEntries } from '../../src/services/credentials/kv-credential-store';
import { buildGateway } from '../../src/worker/gateway';
import { DEMO, json } from '../suites/client';
import { gatewayClient, workerClient } from './client';

const kv = env.CREDENTIALS!;
const get = (path: string, authorization: string) => workerClient().get(path, { Authorization: authorization });

describe('credentials from the CREDENTIALS KV namespace', () => {
  it('accepts a project key that exists only in KV, with the access its entry grants', async () => {
    await kv.put(`apikey:${await sha256Hex('edge-only-key')}`, JSON.stringify({ id: 'edge-project', resources: ['species'] }));
    const ok = await get('/v2/species', 'ApiKey edge-only-key');
    expect(ok.status, await ok.text()).toBe(200);
    const forbidden = await get('/v2/genus', 'ApiKey edge-only-key');
    expect(forbidden.status).toBe(403);
    expect((await json(forbidden)).code).toBe('auth/forbidden');
  });

  it('accepts a personal access token from KV as a Bearer credential', async () => {
    await kv.put(`pat:${await sha256Hex('edge-member-token')}`, JSON.stringify({ member: 'edge-member', resources: '*' }));
    const res = await get('/v2/genus', 'Bearer edge-member-token');
    expect(res.status, await res.text()).toBe(200);
  });

  it('refuses a key KV does not hold, and one removed from KV once its isolate copy is past its bound', async () => {
    const clock = new ManualClock(Date.now());
    const gateway = gatewayClient(buildGateway(env, clock));
    const at = (key: string) => gateway.get('/v2/species', { Authorization: `ApiKey ${key}` });
    const unknown = await at('short-lived-key');
    expect(unknown.status).toBe(401);
    expect((await json(unknown)).code).toBe('auth/invalidCredential');

    // An unknown key is never kept: issued now, it works at once.
    const digest = await sha256Hex('short-lived-key');
    await kv.put(`apikey:${digest}`, JSON.stringify({ id: 'short-lived', resources: '*' }));
    expect((await at('short-lived-key')).status).toBe(200);
    await kv.delete(`apikey:${digest}`);
    // The isolate answers from the principal it read for at most PRINCIPAL_SECONDS, then reads KV.
    clock.advance(PRINCIPAL_SECONDS * 1000 - 1);
    expect((await at('short-lived-key')).status).toBe(200);
    clock.advance(1);
    expect((await at('short-lived-key')).status).toBe(401);
  });

  it('serves the demo credentials only because they were put in KV (the binding replaces the demo store)', async () => {
    const demoKey = `apikey:${await sha256Hex('demo-project-key')}`;
    const entry = await kv.get(demoKey);
    await kv.delete(demoKey);
    // A gateway of its own: the entry's may hold the demo principal from an earlier request.
    expect((await gatewayClient(buildGateway(env)).get('/v2/species', { Authorization: DEMO.key })).status).toBe(401);
    await kv.put(demoKey, entry!);
    expect((await gatewayClient(buildGateway(env)).get('/v2/species', { Authorization: DEMO.key })).status).toBe(200);
  });

  it('answers a malformed entry with a 500 that reveals nothing, never with access', async () => {
    await kv.put(`apikey:${await sha256Hex('broken-entry-key')}`, JSON.stringify({ id: 'broken', resources: 'everything' }));
    const res = await get('/v2/species', 'ApiKey broken-entry-key');
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(500);
    expect(body.code).toBe('svc/internalError');
    expect(JSON.stringify(body)).not.toMatch(/resources|broken/);
  });

  it('finds an OAuth client by id, with its secret digest', async () => {
    const digest = await sha256Hex('edge-client-secret');
    await kv.put('client:edge-client', JSON.stringify({ id: 'edge-client', secret_sha256: digest, resources: '*', preview: true }));
    const store = new KvCredentialStore(kv);
    expect(await store.client('edge-client')).toEqual({
      principal: { kind: 'client', id: 'edge-client', access: { resources: RESOURCE_NAMES, preview: true } },
      secretDigests: [digest],
    });
    expect(await store.client('no-such-client')).toBeUndefined();
  });

  it('refuses the tokens a client holds once its KV entry is deleted and the isolate copy is past its bound', async () => {
    const clock = new ManualClock(Date.now());
    const gateway = buildGateway(env, clock);
    const digests = [await sha256Hex('edge-rotated-old'), await sha256Hex('edge-rotated-new')];
    // A client in the middle of a rotation: one entry holding both secrets (what ops:kv-credentials writes).
    const entries = kvEntries({ clients: digests.map((secret_sha256) => ({ id: 'edge-rotated', secret_sha256, resources: '*', preview: true })) });
    expect(entries).toHaveLength(1);
    await kv.put(entries[0]!.key, entries[0]!.value);
    const issue = async (secret: string) => {
      const request = new Request('https://localhost/oauth/token', {
        method: 'POST',
        headers: { Authorization: `Basic ${btoa(`edge-rotated:${secret}`)}`, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      });
      return gateway.fetch(request, env, createExecutionContext());
    };
    const tokens = [];
    for (const secret of ['edge-rotated-old', 'edge-rotated-new']) {
      const res = await issue(secret);
      expect(res.status, await res.clone().text()).toBe(200);
      tokens.push(((await res.json()) as { access_token: string }).access_token);
    }
    const at = (token: string) => gatewayClient(gateway).get('/v3/species', { Authorization: `Bearer ${token}` });
    for (const token of tokens) expect((await at(token)).status).toBe(200);

    await kv.delete('client:edge-rotated');
    // No new token at once (token requests always read KV); held tokens within the principal bound.
    expect((await issue('edge-rotated-new')).status).toBe(401);
    clock.advance(PRINCIPAL_SECONDS * 1000 - 1);
    expect((await at(tokens[1]!)).status).toBe(200);
    clock.advance(1);
    for (const token of tokens) {
      const res = await at(token);
      expect(res.status).toBe(401);
      expect((await json(res)).code).toBe('auth/invalidCredential');
    }
  });
});
