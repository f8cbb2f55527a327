/**
 * `npm run ops:report -- --clients DIR`: one migration plan per client that called v1 (Markdown
 * and JSON), and an index with every client's status and the progress by day. The examples were
 * computed from the bundled dataset by the very changes the gateway applies (`plan-examples.ts`).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { planExample } from '../../src/migration/plan/examples';
import { progressChart } from './progress-chart';
import { migrationPlan, type MigrationPlan, type PlanStatus } from '../../src/migration/plan/plan';
import { type ClientUsage, hasPlan, refusedOnly } from '../../src/migration/plan/usage';

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
  if (plan.parity) {
    const where = Object.entries(plan.parity.paths).sort((a, b) => b[1] - a[1]);
    out.push(
      `Compared with the legacy backend: ${plan.parity.answers} of its v1 answers, ${plan.parity.differed} different${
        where.length > 0 ? ` (${where.map(([path, n]) => `\`${path}\` ${n}`).join(', ')})` : ''
      }. A difference is where the gateway's v1 answer is not the legacy backend's: check those fields before v1 is answered by the gateway.`,
      '',
    );
  }
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
export type ProgressRow = { day: string } & Record<PlanStatus, number>;

export function progressByDay(clients: readonly ClientUsage[]): ProgressRow[] {
  const days = clients.flatMap((c) => [...c.v1_days, c.first_v2_call?.slice(0, 10) ?? []].flat()).sort();
  if (days.length === 0) return [];
  const rows: ProgressRow[] = [];
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
  // Callers whose every v1 call was refused are not migrating: they are counted apart.
  const refused = usage.filter(refusedOnly);
  const plans = usage.filter(hasPlan).map((u) => migrationPlan(u, { ...options, contact: options.contacts.get(u.subject) ?? null, example: planExample }));
  mkdirSync(dir, { recursive: true });
  for (const plan of plans) {
    writeFileSync(join(dir, `${fileName(plan.subject)}.json`), `${JSON.stringify(plan, null, 2)}\n`);
    writeFileSync(join(dir, `${fileName(plan.subject)}.md`), planMarkdown(plan));
  }
  const progress = progressByDay(usage.filter(hasPlan));
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
    refused_only: refused.map((u) => ({ subject: u.subject, v1_calls: u.calls.v1 })),
    v2_only: moved,
    progress,
  };
  writeFileSync(join(dir, 'index.json'), `${JSON.stringify(index, null, 2)}\n`);
  const md = ['# v1 clients and their migration plans', '', `Moved: no v1 call since ${options.movedSince}.`, ''];
  md.push(`${STATUSES.map((s) => `${counts[s]} ${s}`).join(', ')}.`, '');
  md.push('| Client | Contact | Status | v1 calls | Last v1 call | Plan |', '|---|---|---|---:|---|---|');
  for (const c of index.clients) md.push(`| ${c.subject} | ${c.contact ?? '–'} | ${c.status} | ${c.v1_calls} | ${c.last_v1_call ?? '–'} | [plan](${c.plan}) |`);
  md.push('', `Callers whose every v1 call was refused (no plan): ${refused.map((u) => u.subject).join(', ') || 'none'}.`, '');
  md.push('## Progress by day', '');
  if (progress.length > 0) {
    writeFileSync(join(dir, 'progress.svg'), progressChart(progress));
    md.push('![Clients not started, started and moved, by day](progress.svg)', '');
  }
  md.push('| Day | Not started | Started | Moved |', '|---|---:|---:|---:|');
  for (const row of progress) md.push(`| ${row.day} | ${row['not started']} | ${row.started} | ${row.moved} |`);
  writeFileSync(join(dir, 'index.md'), `${md.join('\n')}\n`);
  return plans;
}
