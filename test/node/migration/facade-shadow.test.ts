/**
 * Shadow comparisons with the facade answering: the legacy backend on loopback answers the same
 * requests after the caller's answer, and every difference is logged with its route and JSON path.
 */
import type { HttpBindings } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sampled } from '../../../src/migration/sampling';
import { ReportBuilder } from '../../../scripts/report/aggregate';
import { expectedSampled } from '../../support/sampling';
import { afterNodeResponse } from '../../../src/node/connection';
import { json } from '../../support/harness';
import { legacyV1, type Injection, type LegacyV1 } from '../../support/legacy-v1';
import { migrationApp, type MigrationApp } from '../../support/migration';
import { serveOnLoopback } from '../../support/loopback';
import { LEGACY_AUTHORIZATION } from '../../support/legacy-v1';
import { testApp } from '../../support/harness';

let legacy: LegacyV1;
beforeAll(async () => {
  legacy = await legacyV1();
});
afterAll(() => legacy.close());

const WALKS = [
  '/v1/species?q=oak',
  '/api/v1/species?q=clover&order[year]=desc',
  '/v1/species?q=rosa&order[scientific_name]=desc',
  '/v1/species?q=willow&order[common_name]=asc&order[year]=desc',
  '/v1/families?order[name]=desc',
  '/api/v1/genus?q=grass&order[slug]=asc',
  '/v1/plants?q=lily&order[scientific_name]=asc',
  '/v1/genus',
];
const ERRORS = [
  '/v1/species?page=0',
  '/v1/species?order[colour]=asc',
  `/v1/species?q=${'a'.repeat(201)}`,
  '/v1/species?order[year]=up',
  '/v1/species?q=oak&page=33',
  '/v1/species/NO-SUCH-ID',
  '/v1/genus/NOPE',
  '/api/v1/families/NOPE',
  '/v1/plants/NOPE',
  '/v1/species?page=1&page=2',
  '/v1/species?q=zzzxqj',
];

/**
 * A turn of the event loop between requests, as requests arriving over sockets get: the
 * comparisons started after each answer run then, and at most 32 are in flight (beyond them a
 * comparison is not made). A known key is admitted without a promise, so a loop of requests
 * without it would never let them start.
 */
const nextTurn = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Every page of a walk, by following links.next; returns the paths requested and the records seen. */
async function walk(t: MigrationApp, start: string): Promise<{ paths: string[]; ids: string[] }> {
  const paths: string[] = [];
  const ids: string[] = [];
  for (let next: string | undefined = start; next; ) {
    const res = await t.get(next);
    const body = await json(res);
    await nextTurn();
    expect(res.status, `${next}: ${JSON.stringify(body).slice(0, 200)}`).toBe(200);
    paths.push(next);
    ids.push(...body.data.map((r: any) => r.id));
    next = body.links.next;
  }
  return { paths, ids };
}

describe('v1 parity, the facade answering, legacy compared (V1_COMPARE_PERCENT=100)', () => {
  it('finds no difference over thousands of requests: walks, details of every record kind, errors', async () => {
    const t = migrationApp(legacy, { V1_COMPARE_PERCENT: '100' });
    let requests = 0;
    const details: string[] = [];
    for (const start of WALKS) {
      const { paths, ids } = await walk(t, start);
      requests += paths.length;
      const resource = start.split('?')[0]!;
      details.push(...ids.filter((_, i) => i % 3 === 0).map((id) => `${resource}/${encodeURIComponent(id)}`));
    }
    for (const path of [...details, ...ERRORS]) {
      const res = await t.get(path);
      await res.arrayBuffer();
      await nextTurn();
      requests++;
    }
    await t.settled();
    const kinds = new Set(t.lines('v1 comparison').map((l) => l.route));
    expect(requests).toBeGreaterThan(1500);
    expect(kinds).toEqual(
      new Set(['GET /species', 'GET /species/{id}', 'GET /families', 'GET /families/{id}', 'GET /genus', 'GET /genus/{id}', 'GET /plants', 'GET /plants/{id}']),
    );
    expect(t.lines('v1 parity')).toEqual([]);
    expect(t.lines('v1 comparison not made')).toEqual([]);
    expect(t.lines('v1 comparison').length).toBe(requests);
  });

  const EXPECTED: Record<Injection, [string, string, string][]> = {
    renamedField: [
      ['GET /species', 'data[].flower_or_seed', 'value'],
      ['GET /species', 'data[].fruit_or_seed', 'value'],
    ],
    outOfOrder: [['GET /plants', 'data', 'order']],
    totalOffByOne: [['GET /genus', 'meta.total', 'value']],
    lowercaseRank: [['GET /species/{id}', 'rank', 'value']],
    different404: [['GET /families/{id}', 'message', 'value']],
    upperCaseNames: [
      ['GET /species/{id}', 'common_name', 'value'],
      ['GET /species/{id}', 'common_names.French[]', 'value'],
    ],
  };
  const PROBES = [
    '/v1/species?q=oak',
    '/api/v1/species?q=oak&page=2',
    '/v1/plants?q=lily',
    '/v1/genus?q=grass&page=3',
    '/v1/species/ABBA',
    '/v1/species/COFL2',
    '/v1/families/NOPE',
    '/v1/families/Pinaceae',
    '/v1/families?q=rose',
    '/v1/genus/Abies',
    '/v1/plants/ABLA',
    '/v1/species/NO-SUCH-ID',
    '/v1/species?page=0',
  ];
  const found = (t: MigrationApp) => new Set(t.lines('v1 parity').map((l) => `${l.route} ${l.json_path} ${l.kind}`));
  const injected = async (inject: Injection[], env: Record<string, string> = {}) => {
    legacy.inject = new Set(inject);
    try {
      const t = migrationApp(legacy, { V1_COMPARE_PERCENT: '100', ...env });
      for (const path of PROBES) await (await t.get(path)).arrayBuffer();
      await t.settled();
      return t;
    } finally {
      legacy.inject = new Set();
    }
  };

  it.each(Object.keys(EXPECTED) as Injection[])('reports the injected %s at its route and JSON path, and nothing else', async (name) => {
    const t = await injected([name]);
    expect(found(t)).toEqual(new Set(EXPECTED[name].map((e) => e.join(' '))));
    expect(t.lines('v1 comparison').length).toBe(PROBES.length);
  });

  it('reports all of them at once, one line per JSON path per request, with both values and the redacted path', async () => {
    const t = await injected(Object.keys(EXPECTED) as Injection[]);
    expect(found(t)).toEqual(
      new Set(
        Object.values(EXPECTED)
          .flat()
          .map((e) => e.join(' ')),
      ),
    );
    const rank = t.lines('v1 parity').filter((l) => l.json_path === 'rank');
    expect(rank.map((l) => [l.path, l.facade, l.legacy])).toEqual([
      ['/v1/species/ABBA', 'SPECIES', 'species'],
      ['/v1/species/COFL2', 'SPECIES', 'species'],
    ]);
    const order = t.lines('v1 parity').find((l) => l.json_path === 'data')!;
    expect((order.facade as string[]).slice(0, 2)).toEqual((order.legacy as string[]).slice(0, 2).reverse());
    const renamed = t.lines('v1 parity').filter((l) => l.json_path === 'data[].flower_or_seed');
    expect(renamed.map((l) => [l.path, l.occurrences, l.legacy])).toEqual([
      ['/v1/species?q=oak', 10, '(absent)'],
      ['/api/v1/species?q=oak&page=2', 10, '(absent)'],
    ]);
    const matched = t
      .lines('v1 comparison')
      .filter((l) => l.matched)
      .map((l) => l.route);
    expect(matched).toContain('GET /genus/{id}');
    // Each line names the caller, so the report's plan of that client says how its own answers compared.
    const lines = [...t.lines('v1 comparison'), ...t.lines('v1 parity')];
    expect(new Set(lines.map((l) => l.subject))).toEqual(new Set(['project:demo']));
    const report = new ReportBuilder();
    for (const line of t.logs) report.add(line);
    const client = report.usage.result().find((u) => u.subject === 'project:demo')!;
    const comparisons = t.lines('v1 comparison');
    expect(client.compared).toMatchObject({ answers: comparisons.length, differed: comparisons.filter((l) => !l.matched).length });
    expect(client.compared.paths.rank).toBe(2);
    expect(client.compared.paths['data[].flower_or_seed']).toBe(2);
  });

  it('leaves out V1_COMPARE_IGNORE paths', async () => {
    const t = await injected(['totalOffByOne', 'different404', 'lowercaseRank'], { V1_COMPARE_IGNORE: 'meta.total, message' });
    expect(found(t)).toEqual(new Set(['GET /species/{id} rank value']));
  });

  it('leaves out only the path named and what is below it, not a longer name it is the start of', async () => {
    // `common_name` is the start of `common_names`: ignoring the one must still report the other.
    const names = await injected(['upperCaseNames'], { V1_COMPARE_IGNORE: 'common_name' });
    expect(found(names)).toEqual(new Set(['GET /species/{id} common_names.French[] value']));
    const byName = await injected(['upperCaseNames', 'lowercaseRank'], { V1_COMPARE_IGNORE: 'common_names.French,ran' });
    expect(found(byName)).toEqual(new Set(['GET /species/{id} common_name value', 'GET /species/{id} rank value']));
    const below = await injected(['upperCaseNames'], { V1_COMPARE_IGNORE: 'common_names' });
    expect(found(below)).toEqual(new Set(['GET /species/{id} common_name value']));
  });
});

describe('sampling and timing of comparisons', () => {
  it('compares exactly the requests whose id is sampled (V1_COMPARE_PERCENT=25)', async () => {
    const t = migrationApp(legacy, { V1_COMPARE_PERCENT: '25' });
    const ids: string[] = [];
    for (let i = 0; i < 200; i++) {
      const res = await t.get('/v1/families/Pinaceae');
      await res.arrayBuffer();
      await nextTurn();
      ids.push(res.headers.get('Svc-Request-Id')!);
    }
    await t.settled();
    const compared = t.lines('v1 comparison').map((l) => l.request_id);
    expect(new Set(compared)).toEqual(new Set(ids.filter((id) => sampled(id, 25))));
    expect(compared.length).toBeGreaterThan(20);
    expect(compared.length).toBeLessThan(80);
  });

  /** Request ids (random UUIDs) whose place in the 10,000 sampling slots is in `[from, to)`. */
  const idsInSlots = (from: number, to: number, count: number): string[] => {
    const found: string[] = [];
    while (found.length < count) {
      const id = crypto.randomUUID();
      if (expectedSampled(id, String(to / 100)) && !expectedSampled(id, String(from / 100))) found.push(id);
    }
    return found;
  };

  it.each([
    ['0.25', 25],
    ['12.5', 1250],
    ['33.33', 3333],
  ])('V1_COMPARE_PERCENT=%s compares the requests just inside that share of ids, not those just past it', async (percent, slot) => {
    // The request ids the gateway draws are chosen here: some just below the percent's slot, some
    // just above it, where a percent rounded or truncated to a whole number would put the line.
    const inside = idsInSlots(Math.max(0, slot - 20), slot, 6);
    const outside = idsInSlots(slot, slot + 60, 6);
    // Each request draws its id as a UUID (its trace id comes from other random bytes).
    const fresh = crypto.randomUUID.bind(crypto);
    const queue = [...inside, ...outside];
    const t = migrationApp(legacy, { V1_COMPARE_PERCENT: percent });
    // A first request outside the count: whatever is drawn once per gateway is drawn here.
    await (await t.get('/v2/families/Pinaceae')).arrayBuffer();
    // Anything else drawing ids meanwhile (a request of an earlier test still running) gets fresh ones.
    const draw = vi.spyOn(crypto, 'randomUUID').mockImplementation(() => (queue.shift() as ReturnType<typeof crypto.randomUUID> | undefined) ?? fresh());
    try {
      const ids: string[] = [];
      for (let i = 0; i < inside.length + outside.length; i++) {
        const res = await t.get('/v1/families/Pinaceae');
        await res.arrayBuffer();
        ids.push(res.headers.get('Svc-Request-Id')!);
      }
      const chosen = new Set([...inside, ...outside]);
      expect(ids.filter((id) => chosen.has(id)).length, 'the chosen ids answered these requests').toBeGreaterThanOrEqual(10);
      await t.settled();
      expect(new Set(t.lines('v1 comparison').map((l) => l.request_id))).toEqual(new Set(ids.filter((id) => expectedSampled(id, percent))));
    } finally {
      draw.mockRestore();
    }
  });

  it('answers the caller before the comparison, even when the other side hangs; that is logged as not made', async () => {
    const t = migrationApp(legacy, { V1_COMPARE_PERCENT: '100', UPSTREAM_TIMEOUT_MS: '300', UPSTREAM_RETRIES: '0' });
    legacy.fault = () => {}; // never answers
    try {
      const res = await t.get('/v1/species/ABBA');
      expect(res.status).toBe(200);
      expect((await json(res)).id).toBe('ABBA');
      expect(t.lines('v1 comparison not made'), 'the comparison is still waiting').toEqual([]);
      await t.settled();
    } finally {
      legacy.fault = undefined;
    }
    expect(t.lines('v1 comparison not made')).toMatchObject([{ level: 'warn', route: 'GET /species/{id}', answered_by: 'facade', code: 'upstream/timeout' }]);
    expect(t.lines('v1 comparison')).toEqual([]);
  });

  it('skips comparisons past 32 in flight, so a slow other side cannot pile them up', async () => {
    const t = migrationApp(legacy, { V1_COMPARE_PERCENT: '100', UPSTREAM_TIMEOUT_MS: '300', UPSTREAM_RETRIES: '0' });
    legacy.fault = () => {}; // never answers
    try {
      const answers = await Promise.all(Array.from({ length: 40 }, () => t.get('/v1/families/Pinaceae')));
      expect(answers.map((r) => r.status)).toEqual(Array(40).fill(200));
      await t.settled();
    } finally {
      legacy.fault = undefined;
    }
    const reasons = t.lines('v1 comparison not made').map((l) => l.code ?? l.reason);
    expect(reasons.filter((r) => r === 'upstream/timeout')).toHaveLength(32);
    expect(reasons.filter((r) => r === 'more than 32 comparisons in flight')).toHaveLength(8);
  });

  it('on Node, starts the comparison only once the response has been written', async () => {
    const written: boolean[] = [];
    const t = testApp({
      env: { LEGACY_V1_URL: legacy.url, LEGACY_V1_AUTHORIZATION: LEGACY_AUTHORIZATION, V1_COMPARE_PERCENT: '100' },
      services: {
        afterResponse: (c, task) => afterNodeResponse(c, () => (written.push((c.env as HttpBindings).outgoing.writableFinished), task())),
      },
    });
    const server = await serveOnLoopback(t);
    try {
      const res = await server.send('GET', '/v1/species/ABBA', { Authorization: 'ApiKey demo-project-key' });
      expect(res.status).toBe(200);
      await expect.poll(() => t.logs.some((l) => l.message === 'v1 comparison')).toBe(true);
      expect(written, 'the whole response was written when the comparison started').toEqual([true]);
    } finally {
      await server.close();
    }
  });
});
