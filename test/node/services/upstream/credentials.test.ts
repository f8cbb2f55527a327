/**
 * The gateway authenticates callers itself and sends upstream only its own credential: a recording
 * upstream sees every request the gateway makes, whatever credentials callers used, and where.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO } from '../../../support/harness';
import { fakePage, fakeUpstream, pageOf, sendJson, upstreamGateway, type FakeUpstream, type UpstreamGateway } from '../../../support/upstream';

const GATEWAY_AUTHORIZATION = 'ApiKey gateway-own-secret';
const CALLER_SECRETS = ['demo-project-key', 'demo-personal-token', 'demo-species-only-key'];

let upstream: FakeUpstream;
let gateway: UpstreamGateway;

beforeAll(async () => {
  upstream = await fakeUpstream((req, res) =>
    sendJson(
      res,
      req.url!.startsWith('/v2/species/')
        ? { data: { id: decodeURIComponent(req.url!.split('/')[3]!) }, meta: { last_modified: '2026-03-18T00:00:00Z' } }
        : fakePage(pageOf(req)),
    ),
  );
  gateway = upstreamGateway(upstream.url, { authorization: GATEWAY_AUTHORIZATION });
});
afterAll(() => upstream.close());

const key = DEMO.key.split(' ')[1]!;
const token = DEMO.personalToken.split(' ')[1]!;

/** Every way a caller can present a credential (v1 places answer 404 until the v1 facade exists; either way nothing may leak). */
const REQUESTS: Array<[string, Record<string, string>]> = [
  ['/v2/species', { Authorization: DEMO.key }],
  ['/v2/species?page=2', { Authorization: DEMO.personalToken, Cookie: `session=${token}`, Origin: 'https://app.example', 'X-Forwarded-For': '203.0.113.9' }],
  ['/v2/species/ABAL3', { Authorization: DEMO.key, 'If-None-Match': '"abc"', 'Svc-Request-Id': 'caller-chosen-id' }],
  ['/v2/species', { Authorization: DEMO.key, 'x-api-key': key }],
  ['/v2/species', { Authorization: DEMO.key, 'x-key': key }],
  [`/v2/species?key=${key}`, { Authorization: DEMO.key }],
  [`/v2/species?token=${token}`, {}],
  ['/v2/species', { Authorization: DEMO.speciesOnlyKey }],
  [`/v1/species?key=${key}`, {}],
  [`/v1/species?token=${token}`, {}],
  ['/v1/species', { 'x-api-key': key }],
  ['/v1/species', { 'x-key': key }],
  ['/v1/species/ABAL3', { Authorization: DEMO.key }],
  [`/api/v1/species?page=3&key=${key}`, {}],
];

describe('no caller credential ever reaches the upstream', () => {
  it('sends only UPSTREAM_AUTHORIZATION, Svc-Request-Id and Accept of its own', async () => {
    for (const [path, headers] of REQUESTS) await gateway.get(path, headers);
    expect(upstream.seen.length, 'some requests did reach the upstream').toBeGreaterThanOrEqual(4);
    for (const seen of upstream.seen) {
      const everything = JSON.stringify(seen);
      for (const secret of CALLER_SECRETS) expect(everything, `${seen.url} carries a caller secret`).not.toContain(secret);
      expect(seen.headers.authorization).toBe(GATEWAY_AUTHORIZATION);
      expect(seen.headers.accept).toBe('application/json');
      for (const name of ['x-api-key', 'x-key', 'cookie', 'origin', 'x-forwarded-for', 'if-none-match']) {
        expect(seen.headers[name], `${name} on ${seen.url}`).toBeUndefined();
      }
      const params = new URL(seen.url, 'http://x').searchParams;
      expect(params.has('key') || params.has('token'), seen.url).toBe(false);
      expect(seen.headers['svc-request-id']).not.toBe('caller-chosen-id');
    }
  });

  it('keeps search text that looks like a credential parameter inside q', async () => {
    const before = upstream.seen.length;
    await gateway.get('/v2/species?q=fir%26key%3Dx', { Authorization: DEMO.key });
    const sent = new URL(upstream.seen[before]!.url, 'http://x').searchParams;
    expect([...sent.keys()]).toEqual(['q']);
    expect(sent.get('q')).toBe('fir&key=x');
  });

  it('forwards the Svc-Request-Id of the gateway response', async () => {
    for (const path of ['/v2/species?page=3', '/v2/species/SP9']) {
      const before = upstream.seen.length;
      const res = await gateway.get(path);
      expect(res.status).toBe(200);
      expect(upstream.seen).toHaveLength(before + 1);
      expect(upstream.seen[before]!.headers['svc-request-id']).toBe(res.headers.get('svc-request-id'));
    }
  });

  it('sends no Authorization at all when UPSTREAM_AUTHORIZATION is unset', async () => {
    const bare = upstreamGateway(upstream.url, { authorization: undefined });
    const before = upstream.seen.length;
    expect((await bare.get('/v2/species?page=2', { Authorization: DEMO.key })).status).toBe(200);
    expect(upstream.seen[before]!.headers.authorization).toBeUndefined();
  });
});
