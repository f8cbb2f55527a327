/**
 * The self-service migration plan on Workers: every answered request is counted into its
 * client's `USAGE` Durable Object after the response, and `GET /v2/migration-plan` reads the
 * caller's own, whichever isolate counted its calls.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeEach, describe, expect, it } from 'vitest';
import { buildGateway } from '../../src/worker/gateway';
import { DEMO, json } from '../suites/client';
import { gatewayClient } from './client';

const objectOf = (subject: string) => env.USAGE!.get(env.USAGE!.idFromName(subject));
const PROJECT = 'project:demo';
const MEMBER = 'member:demo-member';
const projectKey = DEMO.key.split(' ')[1]!;

/** Two gateways, as two isolates would hold them: each counts into deltas of its own. */
const isolates = () => [gatewayClient(buildGateway(env)), gatewayClient(buildGateway(env))] as const;
const planOf = async (client: ReturnType<typeof gatewayClient>, authorization: string) => {
  const res = await client.get('/v2/migration-plan', { Authorization: authorization });
  expect(res.status).toBe(200);
  return json(res);
};

beforeEach(async () => {
  // The objects outlive a test: each starts from nothing counted.
  for (const subject of [PROJECT, MEMBER]) await runInDurableObject(objectOf(subject), (_o, state) => void state.storage.kv.delete('usage'));
});

describe('GET /v2/migration-plan on Workers', () => {
  it("reads the caller's own plan from its Durable Object, counted by any isolate", async () => {
    const [a, b] = isolates();
    for (const page of [1, 2, 3]) await json(await a.get(`/v1/species?page=${page}`, { 'x-api-key': projectKey }));
    await json(await b.get(`/api/v1/genus/Abies?key=${projectKey}`, {}));
    await json(await b.get('/v2/species', { Authorization: DEMO.key }));
    await json(await a.get('/v2/species', { Authorization: DEMO.personalToken }));
    // Read through the isolate that counted none of the project's v1 pages.
    const plan = await planOf(b, DEMO.key);
    expect(plan.data.subject).toBe(PROJECT);
    expect(plan.data.calls).toEqual({ v1: 4, v2: 1, v3: 0 });
    expect(plan.data.status).toBe('started');
    const items = plan.data.items.map((i: { change: string }) => i.change);
    expect(items[0]).toBe('legacy-credentials');
    expect(plan.data.items[0]).toMatchObject({ urgent: true, evidence: { place: 'query:key', calls: 1 } });
    expect(plan.data.items.find((i: { change: string }) => i.change === 'base-path').evidence.bases).toEqual({ '/v1': 3, '/api/v1': 1 });
    const pages = plan.data.items.find((i: { change: string }) => i.change === 'pages-of-ten');
    expect(pages.evidence).toMatchObject({ route: 'GET /species', walks_by_links: true });
    expect(plan.meta.counted_since).toMatch(/^\d{4}-\d\d-\d\dT/);
    // The other isolate agrees, and has reported the member's call (nothing left in flight).
    expect((await planOf(a, DEMO.key)).data).toEqual(plan.data);
    expect((await planOf(a, DEMO.personalToken)).data.calls).toEqual({ v1: 0, v2: 1, v3: 0 });
  });

  it("never shows one subject another's calls", async () => {
    const [a] = isolates();
    await json(await a.get('/v1/species?page=1', { 'x-api-key': projectKey }));
    const member = await planOf(a, DEMO.personalToken);
    expect(member.data.subject).toBe(MEMBER);
    expect(member.data.calls).toEqual({ v1: 0, v2: 0, v3: 0 });
    expect(member.data).toMatchObject({ status: 'moved', items: [] });
    expect((await planOf(a, DEMO.key)).data.calls.v1).toBe(1);
  });

  it('counts concurrent requests exactly, and reading the plan not at all', async () => {
    const [a, b] = isolates();
    await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).get(`/v1/species?page=${1 + (i % 3)}`, { 'x-api-key': projectKey }).then(json)));
    expect((await planOf(a, DEMO.key)).data.calls).toEqual({ v1: 20, v2: 0, v3: 0 });
    expect((await planOf(b, DEMO.key)).data.calls).toEqual({ v1: 20, v2: 0, v3: 0 });
    await runInDurableObject(objectOf(PROJECT), (_o, state) => {
      expect(state.storage.kv.get<{ usage: { routes: Record<string, number> } }>('usage')!.usage.routes).toEqual({ 'GET /species': 20 });
    });
  });
});
