/**
 * `npm run ops:report -- --clients DIR`: a population of v1 clients, each with its own mix, calls a
 * gateway over loopback; the report turns the gateway's own access lines into one plan per client,
 * and each plan is checked item by item against what that client did: every item is true of it,
 * and every change that applies to its calls is there.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MigrationPlan, PlanItem } from '../../../../src/migration/plan/plan';
import { MemoryUsageStore } from '../../../../src/migration/plan/usage-store';
import { MemoryCredentialStore } from '../../../../src/services/credentials/credential-store';
import { diskApp } from '../../../support/gateway';
import { serveOnLoopback, type LoopbackServer } from '../../../support/loopback';

const ROOT = new URL('../../../..', import.meta.url);
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const CLIENTS = ['query-key', 'x-api-key', 'x-key', 'on-v2', 'errors', 'brownout', 'refused', 'species-only'] as const;
const keyOf = (id: string) => `key-of-${id}-0123456789`;
const credentialsDoc = {
  projects: CLIENTS.filter((id) => id !== 'refused').map((id) => ({
    id,
    key_sha256: sha(keyOf(id)),
    resources: id === 'species-only' ? ['species'] : '*',
    contact: `${id}@teams.example`,
  })),
};
const BROWNOUT_START = '2026-12-01T10:00:00Z';

const dir = mkdtempSync(join(tmpdir(), 'client-plans-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cli(args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/report.ts', ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? -1, stderr }));
  });
}

const t = diskApp({
  now: '2026-11-20T09:00:00Z',
  env: { V1_BROWNOUTS: `${BROWNOUT_START}/PT1H` },
  services: { credentials: new MemoryCredentialStore(credentialsDoc as never), usage: new MemoryUsageStore('2026-11-20T09:00:00.000Z') },
});
let server: LoopbackServer;
const plans = new Map<string, MigrationPlan>();
/** What each client read at `/v2/migration-plan` with its own key. */
const selfService = new Map<string, { status: number; body: any }>();
let v1Link = '';
let index: any;

/** One request over loopback; HTTPS as a TLS-terminating proxy would say. */
async function call(path: string, headers: Record<string, string> = {}): Promise<number> {
  const res = await server.send('GET', path, { Host: 'localhost', ...headers });
  return res.status;
}

beforeAll(async () => {
  server = await serveOnLoopback(t);
  // on-v2: v1 calls ten days before everyone else, then v2 only.
  for (const page of [1, 2]) await call(`/v1/species?page=${page}`, { 'x-api-key': keyOf('on-v2') });
  t.clock.set('2026-11-30T09:00:00Z');
  await call('/v2/species?page=1', { Authorization: `ApiKey ${keyOf('on-v2')}` });
  // query-key: walks /v1/species by links from page 1 with ?key=, and reads a detail.
  for (const page of [1, 2, 3]) await call(`/v1/species?page=${page}&key=${keyOf('query-key')}`);
  await call(`/v1/species/ABBA?key=${keyOf('query-key')}`);
  // x-api-key: deep pages of /api/v1/genus, computed, and a species detail.
  for (const page of [7, 12, 7]) await call(`/api/v1/genus?page=${page}`, { 'x-api-key': keyOf('x-api-key') });
  await call('/api/v1/species/COFL2', { 'x-api-key': keyOf('x-api-key') });
  // x-key: families' details and an enumeration v1 does not have; it has started on v2.
  await call('/v1/families/Pinaceae', { 'x-key': keyOf('x-key') });
  await call('/v1/genus/Abies/species', { 'x-key': keyOf('x-key') });
  await call('/v2/families/Pinaceae', { Authorization: `ApiKey ${keyOf('x-key')}` });
  // errors: ?token=, 404s and 400s.
  await call(`/v1/species/NO-SUCH-ID?token=${keyOf('errors')}`);
  await call(`/v1/species?page=0&token=${keyOf('errors')}`);
  await call(`/v1/species?order[nope]=asc&token=${keyOf('errors')}`);
  await call(`/v1/species/ABBA?token=${keyOf('errors')}`);
  // refused: every v1 call with a key the gateway does not know.
  for (let i = 0; i < 3; i++) await call('/v1/species', { 'x-api-key': keyOf('refused') });
  // species-only: a known key, but every v1 call is to a resource it may not read (403).
  for (let i = 0; i < 2; i++) await call('/v1/genus', { 'x-api-key': keyOf('species-only') });
  // brownout: calls before and inside a brownout.
  await call('/v1/plants?page=1', { 'x-api-key': keyOf('brownout') });
  t.clock.set('2026-12-01T10:30:00Z');
  for (let i = 0; i < 2; i++) await call('/v1/plants?page=1', { 'x-api-key': keyOf('brownout') });
  // Every client reads its own plan from the gateway, twice: reading it is counted nowhere.
  for (const id of CLIENTS) {
    for (let i = 0; i < 2; i++) {
      const res = await server.send('GET', '/v2/migration-plan', { Host: 'localhost', Authorization: `ApiKey ${keyOf(id)}` });
      selfService.set(id, { status: res.status, body: JSON.parse(res.body) });
    }
  }
  // An error too, to a caller the gateway does not know (no subject: in nobody's plan).
  v1Link = (await server.send('GET', '/v1/species/ABBA', { Host: 'localhost', 'x-api-key': keyOf('refused') })).headers.link as string;
  await server.close();

  const log = join(dir, 'gateway.log');
  const credentials = join(dir, 'credentials.json');
  writeFileSync(log, `${t.logs.map((l) => JSON.stringify(l)).join('\n')}\n`);
  writeFileSync(credentials, JSON.stringify(credentialsDoc));
  const out = join(dir, 'plans');
  const { code, stderr } = await cli(['--clients', out, '--credentials', credentials, log]);
  expect(code, stderr).toBe(0);
  index = JSON.parse(readFileSync(join(out, 'index.json'), 'utf8'));
  for (const c of index.clients) plans.set(c.subject, JSON.parse(readFileSync(join(out, c.plan.replace(/\.md$/, '.json')), 'utf8')));
}, 60_000);

const planOf = (id: string) => {
  const plan = plans.get(`project:${id}`);
  if (!plan) throw new Error(`no plan for ${id}: ${[...plans.keys()].join(', ')}`);
  return plan;
};
const changes = (plan: MigrationPlan) => plan.items.map((i) => i.change);
const item = (plan: MigrationPlan, change: string, route?: string): PlanItem => {
  const found = plan.items.find((i) => i.change === change && (route === undefined || i.evidence.route === route));
  if (!found) throw new Error(`${plan.subject}: no ${change} item ${route ?? ''} in ${JSON.stringify(plan.items.map((i) => i.change))}`);
  return found;
};

describe('migration plans per client, from its own traffic', () => {
  it('plans every client that called v1 with a known credential, and counts the refused apart', () => {
    expect([...plans.keys()].sort()).toEqual(['query-key', 'x-api-key', 'x-key', 'on-v2', 'errors', 'brownout'].map((id) => `project:${id}`).sort());
    expect(index.refused_only).toEqual([{ subject: 'project:species-only', v1_calls: 2 }]);
    // An unknown key names no subject: its calls are not a client's.
    expect(JSON.stringify(index)).not.toContain('project:refused');
    expect(planOf('query-key').contact).toBe('query-key@teams.example');
  });

  it('query-key: the key in URLs first, rotate it; a walk by links changes nothing but the size', () => {
    const plan = planOf('query-key');
    expect(plan.items[0]).toMatchObject({ change: 'legacy-credentials', urgent: true, evidence: { place: 'query:key', calls: 4 } });
    expect(plan.items[0]!.action).toContain('rotate');
    expect(plan.items[0]!.action).toContain('Authorization: ApiKey');
    expect(item(plan, 'base-path').evidence).toEqual({
      bases: { '/v1': 4 },
      routes: [
        { route: 'GET /species', calls: 3, v2: 'GET /v2/species' },
        { route: 'GET /species/{id}', calls: 1, v2: 'GET /v2/species/{id}' },
      ],
    });
    expect(item(plan, 'pages-of-ten', 'GET /species').evidence).toMatchObject({ walks_by_links: true });
    expect(changes(plan).sort()).toEqual(
      [
        'legacy-credentials',
        'base-path',
        'pages-of-ten',
        'total-only-meta',
        'bare-detail',
        'uppercase-enums',
        'flower-or-seed',
        'language-names',
        'deprecation',
      ].sort(),
    );
    expect(plan.status).toBe('not started');
  });

  it('x-api-key: computed deep pages, each with its v2 page and half', () => {
    const plan = planOf('x-api-key');
    expect(item(plan, 'legacy-credentials')).toMatchObject({ evidence: { place: 'x-api-key', calls: 4 } });
    expect(item(plan, 'legacy-credentials').urgent).toBeUndefined();
    expect(item(plan, 'base-path').evidence.bases).toEqual({ '/api/v1': 4 });
    expect(item(plan, 'pages-of-ten', 'GET /genus').evidence).toEqual({
      route: 'GET /genus',
      walks_by_links: false,
      pages: [
        { v1_page: 7, calls: 2, v2_page: 4, half: 'first' },
        { v1_page: 12, calls: 1, v2_page: 6, half: 'second' },
      ],
    });
    // Genus records have no rank, status, duration, fruit_or_seed or names: only the species detail brings those.
    expect(item(plan, 'uppercase-enums').evidence.routes).toEqual(['GET /species/{id}']);
    expect(item(plan, 'bare-detail').example!.v2).toContain('"data"');
  });

  it('x-key: the enumeration it asked v1 for exists in v2; it has started', () => {
    const plan = planOf('x-key');
    expect(item(plan, 'no-enumerations').evidence).toEqual({ routes: { 'GET /genus/{id}/species': 1 } });
    expect(item(plan, 'legacy-errors').evidence).toEqual({ errors: [{ status: 404, calls: 1, v2_codes: ['svc/notFound'] }] });
    expect(changes(plan)).not.toContain('pages-of-ten');
    expect(changes(plan)).not.toContain('uppercase-enums');
    expect(plan.status).toBe('started');
    expect(plan.calls).toEqual({ v1: 2, v2: 1, v3: 0 });
  });

  it('on-v2: no v1 call in the last seven days of the logs, so moved', () => {
    const plan = planOf('on-v2');
    expect(plan.status).toBe('moved');
    expect(plan.first_v2_call).toBe('2026-11-30T09:00:00.000Z');
  });

  it('errors: ?token= first, and each error status with the v2 code to branch on', () => {
    const plan = planOf('errors');
    expect(plan.items[0]).toMatchObject({ change: 'legacy-credentials', urgent: true, evidence: { place: 'query:token', calls: 4 } });
    expect(item(plan, 'legacy-errors').evidence).toEqual({
      errors: [
        { status: 400, calls: 2, v2_codes: ['svc/invalidParameter', 'svc/malformedRequest'] },
        { status: 404, calls: 1, v2_codes: ['svc/notFound'] },
      ],
    });
  });

  it('brownout: its 410s inside a brownout are its own, so it is at risk', () => {
    const plan = planOf('brownout');
    expect(plan).toMatchObject({ status: 'at risk', brownout_hits: 2, calls: { v1: 3, v2: 0, v3: 0 } });
    expect(item(plan, 'deprecation').action).toContain('2 of your v1 calls already met a brownout');
    // A 410 is the brownout's, not an error to branch on.
    expect(changes(plan)).not.toContain('legacy-errors');
  });

  it('draws the progress beside its table: one point a day for each status', () => {
    const md = readFileSync(join(dir, 'plans', 'index.md'), 'utf8');
    expect(md).toContain('](progress.svg)');
    const svg = readFileSync(join(dir, 'plans', 'progress.svg'), 'utf8');
    const lines = [...svg.matchAll(/<polyline data-status="([^"]+)" points="([^"]*)"/g)];
    expect(lines.map((m) => m[1])).toEqual(['not started', 'started', 'moved']);
    for (const m of lines) expect(m[2]!.split(' ')).toHaveLength(index.progress.length);
  });

  it('progress by day counts each client once a day', () => {
    const last = index.progress.at(-1);
    expect(last.day).toBe('2026-12-01');
    expect(last['not started'] + last.started + last.moved).toBe(6);
    expect(last.moved).toBe(1);
    expect(index.progress[0]).toMatchObject({ day: '2026-11-20', 'not started': 1, started: 0, moved: 0 });
  });
});

describe('each client reads its own plan at /v2/migration-plan', () => {
  it("is the report's plan of that client, from what the gateway counted, and no other's", () => {
    for (const id of ['query-key', 'x-api-key', 'x-key', 'on-v2', 'errors', 'brownout']) {
      const { status, body } = selfService.get(id)!;
      expect(status, id).toBe(200);
      // The owner contact is the operator's record: in the report's plans only.
      expect(body.data, id).toEqual({ ...planOf(id), contact: null });
      expect(body.links).toEqual({ self: '/v2/migration-plan', guide: 'https://docs.botanical.example/migrating-to-v2' });
      expect(body.meta).toEqual({ counted_since: '2026-11-20T09:00:00.000Z', moved_since: '2026-11-24T10:30:00.000Z' });
    }
  });

  it('answers a known credential whose v1 calls were all refused, and refuses an unknown one', () => {
    expect(selfService.get('species-only')).toMatchObject({ status: 200, body: { data: { subject: 'project:species-only', calls: { v1: 2 } } } });
    expect(selfService.get('refused')!.status).toBe(401);
  });

  it('links to it from every v1 response (an error too), beside the migration guide, with a documented relation', () => {
    expect(v1Link).toBe(
      '<https://docs.botanical.example/migrating-to-v2>; rel="deprecation", </v2/migration-plan>; rel="https://docs.botanical.example/rels/migration-plan"',
    );
  });
});
