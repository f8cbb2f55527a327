/**
 * `npm run ops:report -- --clients DIR`: one migration plan per client that called v1 (Markdown
 * and JSON), and an index with every client's status and the progress by day. The examples are
 * computed from the bundled dataset by the very changes the gateway applies.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { collectionEnvelope } from '../../src/core/envelope';
import type { Dataset } from '../../src/core/records';
import { migrationPlan, type MigrationPlan, type PlanExample, type PlanStatus } from '../../src/migration/plan/plan';
import type { ClientUsage } from '../../src/migration/plan/usage';
import { BundledSource } from '../../src/services/bundled/bundled-source';
import type { ResourceName } from '../../src/services/record-source';
import { parseConfig } from '../../src/config';
import { v1 } from '../../src/versions/v1/index';
import type { JsonObject } from '../../src/versions/version';
import { changed, pretty } from '../examples-format';

/** The bundled dataset, from this file in `scripts/report/` or from its bundle in `dist/`. */
const FIXTURE_FILE = ['../../fixtures/taxa.json', '../fixtures/taxa.json'].map((p) => fileURLToPath(new URL(p, import.meta.url))).find((f) => existsSync(f))!;
/** Records with every field a change touches, where the resource has them (the guide's own choice for species). */
const SAMPLE_IDS: Partial<Record<ResourceName, string>> = { species: 'COFL2', plants: 'COFL2', families: 'Cornaceae', genus: 'Cornus' };

/** Every example a plan may show, keyed `change route`, computed once from the dataset. */
export async function planExamples(): Promise<(change: string, route: string) => PlanExample | undefined> {
  const dataset = JSON.parse(readFileSync(FIXTURE_FILE, 'utf8')) as Dataset;
  const source = new BundledSource(dataset);
  const changes = new Map(v1(parseConfig({})).changes.map((c) => [c.name, c]));
  const cache = new Map<string, PlanExample | undefined>();
  const examples = new Map<string, Promise<PlanExample | undefined>>();
  const compute = async (name: string, route: string): Promise<PlanExample | undefined> => {
    const change = changes.get(name);
    const path = route.slice(route.indexOf(' ') + 1);
    const resource = path.split('/')[1] as ResourceName;
    const id = SAMPLE_IDS[resource];
    if (!change || !id) return undefined;
    const found = await source.get(resource, id);
    if (!found) return undefined;
    const record = found.record as unknown as JsonObject;
    if (change.record) {
      const [a, b] = changed(change.record(record, resource), record);
      if (Object.keys(a).length === 0 && Object.keys(b).length === 0) return undefined;
      return { caption: `\`GET /${resource}/${id}\`, the fields that differ`, v1: pretty({ id, ...a }), v2: pretty({ id, ...b }) };
    }
    if (change.detail && path.endsWith('{id}')) {
      const v2 = { data: record, meta: found.meta } as unknown as JsonObject;
      return { caption: `\`GET /${resource}/${id}\``, v1: pretty(change.detail(v2)), v2: pretty(v2) };
    }
    if ((change.collection || change.page) && !path.endsWith('{id}')) {
      const core = (await source.list(resource, { q: undefined, order: [], page: 1 }, undefined))!;
      const page = { ...core, items: (core.items as unknown as JsonObject[]).slice(0, 2) };
      const v2 = collectionEnvelope({ ...page, total: core.total }, `/v2/${resource}`, `https://host/v2/${resource}?page=1`);
      if (change.collection) {
        const [a, b] = changed(change.collection(v2), v2);
        return { caption: `\`GET /${resource}\`, the members that differ`, v1: pretty(a), v2: pretty(b) };
      }
      return {
        caption: `\`GET /${resource}?page=3\` in v1 is the first half of \`GET /${resource}?page=2\` in v2`,
        v1: `page=3: records 21-30 of ${core.total}, 10 a page`,
        v2: `page=2: records 21-40 of ${core.total}, 20 a page`,
      };
    }
    return undefined;
  };
  // Computed ahead for every route v1 has, so a plan reads them synchronously.
  for (const name of changes.keys()) {
    for (const resource of Object.keys(SAMPLE_IDS)) {
      for (const route of [`GET /${resource}`, `GET /${resource}/{id}`]) examples.set(`${name} ${route}`, compute(name, route));
    }
  }
  for (const [key, value] of examples) cache.set(key, await value);
  return (change, route) => cache.get(`${change} ${route}`);
}

export interface ClientsOptions {
  movedSince: string;
  sunset: string;
  contacts: ReadonlyMap<string, string>;
}

/** A subject as a file name: `project:acme` -> `project-acme`. */
export const fileName = (subject: string) => subject.replace(/[^A-Za-z0-9_.-]+/g, '-');

/** The Markdown of one plan. */
export function planMarkdown(plan: MigrationPlan): string {
  const out = [`# Migration plan: ${plan.subject}`, ''];
  out.push(`Status: **${plan.status}**. Contact: ${plan.contact ?? 'none on record'}.`, '');
  out.push(
    `v1 calls: ${plan.calls.v1} (first ${plan.first_v1_call ?? '–'}, last ${plan.last_v1_call ?? '–'}); v2 calls: ${plan.calls.v2}${plan.first_v2_call ? ` (from ${plan.first_v2_call})` : ''}.`,
    '',
  );
  for (const [i, item] of plan.items.entries()) {
    out.push(
      `## ${i + 1}. \`${item.change}\`${item.urgent ? ' (first)' : ''}`,
      '',
      item.action,
      '',
      '```json',
      JSON.stringify(item.evidence, null, 2),
      '```',
      '',
    );
    if (item.example) out.push(`${item.example.caption}:`, '', 'v1:', '', '```', item.example.v1, '```', '', 'v2:', '', '```', item.example.v2, '```', '');
  }
  return out.join('\n');
}

const STATUSES: PlanStatus[] = ['not started', 'started', 'moved', 'at risk'];
const DAY_MS = 86_400_000;

/**
 * Progress by day: each client's status as of the end of each day from the first call in the
 * logs to the last (moved: no v1 call in the 7 days up to it).
 */
export function progressByDay(clients: readonly ClientUsage[]): Array<{ day: string } & Record<PlanStatus, number>> {
  const days = clients.flatMap((c) => [...c.v1_days, c.first_v2_call?.slice(0, 10) ?? []].flat()).sort();
  if (days.length === 0) return [];
  const rows = [];
  for (let t = Date.parse(days[0]!); t <= Date.parse(days.at(-1)!); t += DAY_MS) {
    const day = new Date(t).toISOString().slice(0, 10);
    const weekAgo = new Date(t - 6 * DAY_MS).toISOString().slice(0, 10);
    const row = { day, 'not started': 0, started: 0, moved: 0, 'at risk': 0 };
    for (const c of clients) {
      const v1Days = c.v1_days.filter((d) => d <= day);
      if (v1Days.length === 0) continue;
      const v2Started = c.first_v2_call !== null && c.first_v2_call.slice(0, 10) <= day;
      row[v1Days.at(-1)! < weekAgo ? 'moved' : v2Started ? 'started' : 'not started']++;
    }
    rows.push(row);
  }
  return rows;
}

/** Writes every plan and the index into `dir`; returns the plans. */
export async function writeClientPlans(dir: string, usage: readonly ClientUsage[], options: ClientsOptions): Promise<MigrationPlan[]> {
  const example = await planExamples();
  const v1Clients = usage.filter((u) => u.calls.v1 > 0);
  // Callers whose every v1 call was refused (401/403) are not migrating: they are counted apart.
  const refusedOnly = v1Clients.filter((u) => (u.errors['401'] ?? 0) + (u.errors['403'] ?? 0) === u.calls.v1);
  const plans = v1Clients
    .filter((u) => !refusedOnly.includes(u))
    .map((u) => migrationPlan(u, { ...options, contact: options.contacts.get(u.subject) ?? null, example }));
  mkdirSync(dir, { recursive: true });
  for (const plan of plans) {
    writeFileSync(join(dir, `${fileName(plan.subject)}.json`), `${JSON.stringify(plan, null, 2)}\n`);
    writeFileSync(join(dir, `${fileName(plan.subject)}.md`), planMarkdown(plan));
  }
  const progress = progressByDay(v1Clients.filter((u) => !refusedOnly.includes(u)));
  const counts = Object.fromEntries(STATUSES.map((s) => [s, plans.filter((p) => p.status === s).length]));
  const moved = usage.filter((u) => u.calls.v1 === 0).map((u) => u.subject);
  const index = {
    moved_since: options.movedSince,
    statuses: counts,
    clients: plans.map((p) => ({
      subject: p.subject,
      contact: p.contact,
      status: p.status,
      v1_calls: p.calls.v1,
      last_v1_call: p.last_v1_call,
      plan: `${fileName(p.subject)}.md`,
    })),
    refused_only: refusedOnly.map((u) => ({ subject: u.subject, v1_calls: u.calls.v1 })),
    v2_only: moved,
    progress,
  };
  writeFileSync(join(dir, 'index.json'), `${JSON.stringify(index, null, 2)}\n`);
  const md = ['# v1 clients and their migration plans', '', `Moved: no v1 call since ${options.movedSince}.`, ''];
  md.push(`${STATUSES.map((s) => `${counts[s]} ${s}`).join(', ')}.`, '');
  md.push('| Client | Contact | Status | v1 calls | Last v1 call | Plan |', '|---|---|---|---:|---|---|');
  for (const c of index.clients) md.push(`| ${c.subject} | ${c.contact ?? '–'} | ${c.status} | ${c.v1_calls} | ${c.last_v1_call ?? '–'} | [plan](${c.plan}) |`);
  md.push('', `Callers whose every v1 call was refused (no plan): ${refusedOnly.map((u) => u.subject).join(', ') || 'none'}.`, '');
  md.push('## Progress by day', '', '| Day | Not started | Started | Moved |', '|---|---:|---:|---:|');
  for (const row of progress) md.push(`| ${row.day} | ${row['not started']} | ${row.started} | ${row.moved} |`);
  writeFileSync(join(dir, 'index.md'), `${md.join('\n')}\n`);
  return plans;
}
