import { createExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import type { Hono } from 'hono';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildGateway, buildRoutes, configVars } from '../../src/worker/gateway';
import { DEMO, json } from '../suites/client';
import { mintDemoToken } from '../suites/tokens';
import { gatewayClient } from './client';

const SECRETS = { TOKEN_SIGNING_SECRET: 'edge-signing-secret-value', UPSTREAM_AUTHORIZATION: 'Bearer upstream-secret-value' };

/** Builds a gateway from `bindings` as the entry would, capturing what it logs. */
function gatewayWith(bindings: Partial<Env>) {
  const logged: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((line: unknown) => void logged.push(String(line)));
  const gateway = buildGateway({ ...env, ...bindings } as Env);
  const get = async (path: string, headers: Record<string, string> = { Authorization: DEMO.key }) =>
    gateway.fetch(new Request(`https://localhost${path}`, { headers }), env, createExecutionContext());
  return { get, logged };
}

afterEach(() => vi.restoreAllMocks());

describe('configuration from the bindings', () => {
  it('reads [vars] as strings, TOML numbers and booleans as their text, and skips bindings', () => {
    const vars = configVars({
      SERVICE_NAME: 'edge',
      RATE_LIMIT_PER_MINUTE: 90,
      TRUST_PROXY: false,
      CREDENTIALS: env.CREDENTIALS,
      RATE_LIMITER: env.RATE_LIMITER,
    });
    expect(vars).toEqual({ SERVICE_NAME: 'edge', RATE_LIMIT_PER_MINUTE: '90', TRUST_PROXY: 'false' });
  });

  it('builds without drawing random values (the entry builds it in global scope, which allows none); an unset signing secret is drawn on first use', async () => {
    const draws = vi.spyOn(crypto, 'getRandomValues').mockImplementation(() => {
      throw new Error('Disallowed operation called within global scope');
    });
    const gateway = buildGateway({ ...env, TOKEN_SIGNING_SECRET: undefined } as Env);
    expect(draws).not.toHaveBeenCalled();
    draws.mockRestore();
    // The per-isolate secret, drawn when the first token is signed, verifies the tokens it signed.
    const client = gatewayClient(gateway);
    const token = await mintDemoToken(client);
    expect((await client.get('/v3/species', { Authorization: `Bearer ${token}` })).status).toBe(200);
  });

  it('has its router build the route matchers at start (buildRoutes), and answers as before', async () => {
    const gateway = buildGateway(env);
    buildRoutes(gateway);
    // Hono builds its matchers on the first match; once built, no route can be added.
    expect(() => (gateway as Hono).get('/late', (c) => c.text('late'))).toThrow(/matcher is already built/);
    const client = gatewayClient(gateway);
    expect((await client.get('/v2/species/ABBA')).status).toBe(200);
    expect((await client.get('/v2/nowhere')).status).toBe(404);
  });

  it('serves with the wrangler.toml [vars] (the worker entry itself)', () => {
    expect(configVars(env)).toMatchObject({ SERVICE_NAME: 'botanical', DOCS_URL: 'https://docs.botanical.example', TOKEN_RATE_LIMIT_PER_MINUTE: '10' });
  });

  it('builds the gateway from the bindings: problem type and instance follow DOCS_URL and SERVICE_NAME', async () => {
    const { get, logged } = gatewayWith({ SERVICE_NAME: 'edge-test', DOCS_URL: 'https://docs.edge.example/', CREDENTIALS: undefined, ...SECRETS });
    const res = await get('/v2/nowhere');
    const body = await json(res);
    expect(body.type).toBe('https://docs.edge.example/problems/not-found');
    expect(body.instance).toBe(`urn:edge-test:request:${res.headers.get('Svc-Request-Id')}`);

    // Without the KV binding: the demo store, announced by a warning.
    expect((await get('/v2/species')).status).toBe(200);
    expect(
      logged.some((l) => /CREDENTIALS KV namespace is not bound/.test(l)),
      logged.join('\n'),
    ).toBe(true);
    // The ready line describes the configuration without its secrets.
    const ready = logged.find((l) => l.includes('"gateway ready"'));
    expect(ready, logged.join('\n')).toBeDefined();
    expect(JSON.parse(ready!).config).toMatchObject({ serviceName: 'edge-test', tokenSigningSecret: '[set]', upstreamAuthorization: '[set]' });
    // Settings only Node reads are not reported as if they applied here.
    const shown = JSON.parse(ready!).config;
    for (const name of ['port', 'host', 'credentialsFile', 'redisUrl', 'shutdown']) expect(shown, name).not.toHaveProperty(name);
    expect(shown.hostile).not.toHaveProperty('headersTimeoutMs');
    expect(shown.hostile).not.toHaveProperty('maxConnections');
    for (const secret of Object.values(SECRETS)) expect(logged.join('\n')).not.toContain(secret);
  });

  it('answers every request with a 500 problem when a variable is invalid, logging the variable but no secret', async () => {
    const { get, logged } = gatewayWith({ HTTPS_REDIRECT_UNTIL: 'next tuesday', ...SECRETS });
    for (const path of ['/healthz', '/v2/species']) {
      const res = await get(path);
      const text = await res.text();
      expect(res.status, text).toBe(500);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      const body = JSON.parse(text);
      expect(body).toMatchObject({ status: 500, code: 'svc/internalError', type: 'https://docs.botanical.example/problems/internal-error' });
      expect(body.instance).toBe(`urn:botanical:request:${res.headers.get('Svc-Request-Id')}`);
      expect(text).not.toMatch(/HTTPS_REDIRECT_UNTIL|tuesday/);
    }
    expect(logged.filter((l) => l.includes('HTTPS_REDIRECT_UNTIL'))).toHaveLength(2);
    for (const secret of Object.values(SECRETS)) expect(logged.join('\n')).not.toContain(secret);
  });

  it('answers 500 naming the missing ASSETS binding in bundled mode, and needs none in upstream mode', async () => {
    const bundled = gatewayWith({ ASSETS: undefined });
    expect((await bundled.get('/v2/species')).status).toBe(500);
    expect(
      bundled.logged.some((l) => l.includes('ASSETS is not bound')),
      bundled.logged.join('\n'),
    ).toBe(true);
    const upstream = gatewayWith({ ASSETS: undefined, UPSTREAM_URL: 'http://127.0.0.1:9' });
    expect((await upstream.get('/healthz')).status).toBe(200);
  });

  it('never stands in demo secrets unless DEMO_CREDENTIALS=allow: without it a missing store or signing secret answers 500 and names it', async () => {
    const noStore = gatewayWith({ DEMO_CREDENTIALS: undefined, CREDENTIALS: undefined, TOKEN_SIGNING_SECRET: SECRETS.TOKEN_SIGNING_SECRET });
    const refused = await noStore.get('/v2/species');
    expect(refused.status, await refused.text()).toBe(500);
    expect(
      noStore.logged.some((l) => l.includes('CREDENTIALS is not bound')),
      noStore.logged.join('\n'),
    ).toBe(true);
    const noSecret = gatewayWith({ DEMO_CREDENTIALS: undefined, TOKEN_SIGNING_SECRET: undefined });
    expect((await noSecret.get('/v2/species')).status).toBe(500);
    expect(
      noSecret.logged.some((l) => l.includes('TOKEN_SIGNING_SECRET is not set')),
      noSecret.logged.join('\n'),
    ).toBe(true);
    // With both, no demo secret is needed and none is used: the KV store answers, and it holds no demo key.
    const deployed = gatewayWith({ DEMO_CREDENTIALS: undefined, TOKEN_SIGNING_SECRET: SECRETS.TOKEN_SIGNING_SECRET });
    expect((await deployed.get('/healthz')).status).toBe(200);
    // The local configuration allows them.
    const local = gatewayWith({ CREDENTIALS: undefined });
    expect((await local.get('/v2/species')).status).toBe(200);
  });
});
