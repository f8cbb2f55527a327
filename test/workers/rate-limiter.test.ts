import { abortAllDurableObjects, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/core/crypto';
import type { WindowState } from '../../src/services/rate-limit/fixed-window';
import { systemClock } from '../../src/services/clock';
import { buildGateway, edgeRateLimiter } from '../../src/worker/gateway';
import type { RateLimiterObject } from '../../src/worker/rate-limiter-object';
import { DEMO, json } from '../suites/client';
import { mintDemoToken } from '../suites/tokens';
import { gatewayClient } from './client';

const limiter = () => edgeRateLimiter(env, { rateLimitMode: 'exact' }, systemClock)!;

/** Windows turn at whole minutes: a test that counts within one window starts well inside it. */
async function awayFromMinuteEdge(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 3_000) await new Promise((resolve) => setTimeout(resolve, left + 100));
}
const objectOf = (bucket: string) => env.RATE_LIMITER!.get(env.RATE_LIMITER!.idFromName(bucket));

describe('DurableObjectRateLimiter over the RATE_LIMITER namespace', () => {
  it('counts a bucket down to the limit, then refuses with the seconds to reset', async () => {
    await awayFromMinuteEdge();
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await limiter().hit('project:countdown', 3, 60));
    expect(decisions.map(({ allowed, limit, remaining }) => ({ allowed, limit, remaining }))).toEqual([
      { allowed: true, limit: 3, remaining: 2 },
      { allowed: true, limit: 3, remaining: 1 },
      { allowed: true, limit: 3, remaining: 0 },
      { allowed: false, limit: 3, remaining: 0 },
    ]);
    // Windows are aligned to whole minutes, so the reset is what is left of this one.
    const left = 60 - Math.floor((Date.now() % 60_000) / 1000);
    for (const d of decisions) expect(Math.abs(d.resetSeconds - left)).toBeLessThanOrEqual(1);
  });

  it('keeps buckets apart: one object per bucket name', async () => {
    await awayFromMinuteEdge();
    await limiter().hit('project:a', 1, 60);
    expect(await limiter().hit('project:a', 1, 60)).toMatchObject({ allowed: false });
    expect(await limiter().hit('project:b', 1, 60)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('is exact under concurrent requests: exactly the limit is allowed, each remaining count once', async () => {
    await awayFromMinuteEdge();
    const decisions = await Promise.all(Array.from({ length: 50 }, () => limiter().hit('subject:burst', 20, 60)));
    const allowed = decisions.filter((d) => d.allowed);
    expect(allowed).toHaveLength(20);
    expect(allowed.map((d) => d.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('starts a new window once the stored one has ended', async () => {
    await awayFromMinuteEdge();
    await limiter().hit('project:window', 2, 60);
    await limiter().hit('project:window', 2, 60);
    expect(await limiter().hit('project:window', 2, 60)).toMatchObject({ allowed: false });
    await runInDurableObject(objectOf('project:window'), (_instance, state) => {
      const window = state.storage.kv.get<WindowState>('window')!;
      state.storage.kv.put('window', { ...window, start: window.start - 60_000 });
    });
    expect(await limiter().hit('project:window', 2, 60)).toMatchObject({ allowed: true, limit: 2, remaining: 1 });
  });

  it('keeps the count when the object is evicted mid-window (it is in storage, not memory)', async () => {
    await awayFromMinuteEdge();
    await limiter().hit('project:evicted', 5, 60);
    await limiter().hit('project:evicted', 5, 60);
    await abortAllDurableObjects();
    expect(await limiter().hit('project:evicted', 5, 60)).toMatchObject({ allowed: true, remaining: 2 });
  });
});

describe('the rate-limit policy on the Durable Object limiter, RATE_LIMIT_MODE=exact', () => {
  it('counts one project across gateways (isolates): RateLimit headers count down, then 429 with Retry-After', async () => {
    await env.CREDENTIALS!.put(`apikey:${await sha256Hex('metered-key')}`, JSON.stringify({ id: 'metered', resources: '*' }));
    // Two gateways stand for two isolates, possibly in two locations: the object is their one count.
    await awayFromMinuteEdge();
    const isolates = [0, 1].map(() => gatewayClient(buildGateway({ ...env, RATE_LIMIT_PER_MINUTE: '3', RATE_LIMIT_MODE: 'exact' })));
    const seen = [];
    for (let i = 0; i < 4; i++) seen.push(await isolates[i % 2]!.get('/v2/species', { Authorization: 'ApiKey metered-key' }));
    expect(seen.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(seen.slice(0, 3).map((r) => r.headers.get('RateLimit')?.replace(/;t=\d+$/, ''))).toEqual(['"default";r=2', '"default";r=1', '"default";r=0']);
    expect(seen[0]!.headers.get('RateLimit-Policy')).toBe('"default";q=3;w=60');
    const refused = seen[3]!;
    const body = await json(refused);
    expect(body.code, JSON.stringify(body)).toBe('svc/rateLimited');
    const retryAfter = Number(refused.headers.get('Retry-After'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get('RateLimit')).toBe(`"default";r=0;t=${retryAfter}`);
  });
});

/** The RATE_LIMITER namespace with every call to an object made `ms` later, as from another continent. */
function distant(ms: number): DurableObjectNamespace<RateLimiterObject> {
  const namespace = env.RATE_LIMITER!;
  const later = () => new Promise((resolve) => setTimeout(resolve, ms));
  return {
    idFromName: (name: string) => namespace.idFromName(name),
    get: (id: DurableObjectId) => {
      const stub = namespace.get(id);
      return {
        hit: async (limit: number, windowSeconds: number) => (await later(), stub.hit(limit, windowSeconds)),
        peek: async (limit: number, windowSeconds: number) => (await later(), stub.peek(limit, windowSeconds)),
      };
    },
  } as unknown as DurableObjectNamespace<RateLimiterObject>;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe('no request within its limits waits on the Durable Object in local mode (docs/reference/operations.md)', () => {
  const DELAY_MS = 150;
  const ROUNDS = 21;
  const TOKEN_SECRET = 'edge-signing-secret-value-of-32-bytes!';

  const KINDS = (token: string): Record<string, [string, Record<string, string>]> => ({
    'v1 page': ['/v1/species?page=2', { 'X-Api-Key': 'demo-project-key' }],
    'v2 page': ['/v2/species?page=2', { Authorization: DEMO.key }],
    detail: ['/v2/species/ABBA', { Authorization: DEMO.key }],
    search: ['/v2/species?q=rosa', { Authorization: DEMO.key }],
    'v3 with a token': ['/v3/species', { Authorization: `Bearer ${token}` }],
  });

  /**
   * Median times of warm requests of every kind through three gateways, their requests taken in
   * turns (near, far, far in exact mode, in a rotating order) so that whatever else the machine
   * does slows the three alike: the comparison is between them, not against a wall-clock figure.
   */
  async function timings(): Promise<Record<'near' | 'far' | 'farExact', Record<string, number>>> {
    const bindings = { ...env, RATE_LIMIT_PER_MINUTE: '100000', TOKEN_SIGNING_SECRET: TOKEN_SECRET };
    const gateways = {
      near: gatewayClient(buildGateway({ ...bindings, RATE_LIMIT_MODE: 'local', RATE_LIMITER: env.RATE_LIMITER })),
      far: gatewayClient(buildGateway({ ...bindings, RATE_LIMIT_MODE: 'local', RATE_LIMITER: distant(DELAY_MS) })),
      farExact: gatewayClient(buildGateway({ ...bindings, RATE_LIMIT_MODE: 'exact', RATE_LIMITER: distant(DELAY_MS) })),
    };
    const names = Object.keys(gateways) as Array<keyof typeof gateways>;
    // One signing secret: a token any of them mints, all of them accept.
    const kinds = KINDS(await mintDemoToken(gateways.near));
    const medians = { near: {}, far: {}, farExact: {} } as Record<keyof typeof gateways, Record<string, number>>;
    for (const [kind, [path, headers]] of Object.entries(kinds)) {
      // Warm: the credential known, the pieces read, the authority's answers back.
      for (const name of names) for (let i = 0; i < 3; i++) expect((await gateways[name].get(path, headers)).status, `${name} ${kind} ${path}`).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, DELAY_MS + 20));
      const times = { near: [] as number[], far: [] as number[], farExact: [] as number[] };
      for (let i = 0; i < ROUNDS; i++) {
        for (let j = 0; j < names.length; j++) {
          const name = names[(i + j) % names.length]!;
          const started = performance.now();
          const res = await gateways[name].get(path, headers);
          times[name].push(performance.now() - started);
          expect(res.status, `${name} ${kind}: ${await res.text()}`).toBe(200);
        }
      }
      for (const name of names) medians[name][kind] = median(times[name]);
    }
    return medians;
  }

  it('local: warm requests of every kind answer within 10 ms of the same requests with a near object; exact: each waits for it', async () => {
    await awayFromMinuteEdge();
    const { near, far, farExact } = await timings();
    for (const kind of Object.keys(near)) {
      expect(far[kind]! - near[kind]!, `${kind}: local ${JSON.stringify({ near: near[kind], far: far[kind] })}`).toBeLessThanOrEqual(10);
      // The same measure can fail: in exact mode the distance is in every answer.
      expect(farExact[kind]! - near[kind]!, `${kind}: exact ${JSON.stringify({ near: near[kind], far: farExact[kind] })}`).toBeGreaterThanOrEqual(DELAY_MS);
    }
  });

  it.each(['local', 'exact'] as const)('%s: a burst of twice the limit from one project in one isolate admits the limit, then 429', async (mode) => {
    await env.CREDENTIALS!.put(`apikey:${await sha256Hex(`burst-${mode}-key`)}`, JSON.stringify({ id: `burst-${mode}`, resources: '*' }));
    await awayFromMinuteEdge();
    const gateway = gatewayClient(buildGateway({ ...env, RATE_LIMIT_MODE: mode, RATE_LIMIT_PER_MINUTE: '10', RATE_LIMITER: distant(DELAY_MS) }));
    const answers = await Promise.all(Array.from({ length: 20 }, () => gateway.get('/v2/species/ABBA', { Authorization: `ApiKey burst-${mode}-key` })));
    const statuses = answers.map((r) => r.status);
    expect(
      statuses.filter((s) => s === 200),
      statuses.join(),
    ).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
  });

  it('local: two isolates together admit at most the limit each in a window, and each refuses once the object has told it the count is reached', async () => {
    await env.CREDENTIALS!.put(`apikey:${await sha256Hex('spread-key')}`, JSON.stringify({ id: 'spread', resources: '*' }));
    await awayFromMinuteEdge();
    const isolates = [0, 1].map(() => gatewayClient(buildGateway({ ...env, RATE_LIMIT_MODE: 'local', RATE_LIMIT_PER_MINUTE: '4' })));
    const statuses: number[] = [];
    for (let i = 0; i < 16; i++) statuses.push((await isolates[i % 2]!.get('/v2/species/ABBA', { Authorization: 'ApiKey spread-key' })).status);
    const admitted = statuses.filter((s) => s === 200).length;
    // The documented bound: the limit (4) plus at most the limit per other isolate.
    expect(admitted, statuses.join()).toBeGreaterThanOrEqual(4);
    expect(admitted, statuses.join()).toBeLessThanOrEqual(8);
    // Once both have heard from the object, both refuse.
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (const isolate of isolates) expect((await isolate.get('/v2/species/ABBA', { Authorization: 'ApiKey spread-key' })).status).toBe(429);
  });
});
