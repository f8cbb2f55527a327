/** `npm run ops:report`: usage per caller and parity per route and JSON path, from JSON log lines. */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleLines, sampleRequest, SUBJECTS } from '../../bench/report-log';
import { buildReport } from '../../scripts/report';
import { markdown } from '../../scripts/report/markdown';
import { DEMO } from '../support/harness';
import { legacyV1, type LegacyV1 } from '../support/legacy-v1';
import { migrationApp } from '../support/migration';

const REQUESTS = 20_000;
const ROOT = new URL('../..', import.meta.url);
const dir = mkdtempSync(join(tmpdir(), 'report-test-'));
const logFile = join(dir, 'gateway.log');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(logFile, `${Array.from({ length: REQUESTS }, (_, i) => sampleLines(i).join('\n')).join('\n')}\nnot json at all\n`);

/** Runs the report as the operator does (`npm run ops:report -- ...`), with `stdin` piped in. */
function cli(args: string[], stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/report.ts', ...args], { cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(stdin ?? '');
  });
}

describe('report over a generated log', () => {
  it('counts per caller what the log holds', async () => {
    const { stdout, code } = await cli(['--json', logFile]);
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    // The expectations, counted here request by request from the generator's own description.
    const requests = Array.from({ length: REQUESTS }, (_, i) => sampleRequest(i));
    expect(report.lines).toMatchObject({ access: REQUESTS, not_json: 1 });
    expect(report.subjects).toHaveLength(SUBJECTS);
    for (const subject of ['project:p0', 'project:p7', 'project:p499']) {
      const mine = requests.filter((r) => r.subject === subject);
      const v1 = mine.filter((r) => r.version === 'v1');
      const tally = (key: 'credential' | 'route') =>
        v1.reduce<Record<string, number>>((t, r) => {
          t[r[key]] = (t[r[key]] ?? 0) + 1;
          return t;
        }, {});
      expect(
        report.subjects.find((s: any) => s.subject === subject),
        subject,
      ).toEqual({
        subject,
        v1_calls: v1.length,
        v2_calls: mine.length - v1.length,
        v3_calls: 0,
        first_v1_call: v1[0]!.time,
        last_v1_call: v1.at(-1)!.time,
        v1_credentials: tally('credential'),
        v1_routes: tally('route'),
        v1_brownout_hits: 0,
        calls_v2: mine.length > v1.length,
      });
    }
    const compared = requests.filter((r) => r.version === 'v1' && r.compared);
    const species = compared.filter((r) => r.route === 'GET /species');
    const differing = species.filter((r) => r.differs).length;
    expect(report.parity.routes.find((r: any) => r.route === 'GET /species')).toEqual({
      route: 'GET /species',
      compared: species.length,
      matched: species.length - differing,
      match_rate: (species.length - differing) / species.length,
      not_made: 0,
    });
    expect(report.parity.paths).toEqual([
      { route: 'GET /species', json_path: 'data[].rank', differences: differing, share: differing / species.length, example_request_id: expect.any(String) },
    ]);
  });

  it('reads standard input, several files in turn, and prints Markdown by default', async () => {
    const one = sampleLines(0).join('\n');
    const fromStdin = await cli([], one);
    expect(fromStdin.stdout).toMatch(/^# v1 migration report/);
    expect(fromStdin.stdout).toContain('| project:p0 | 0 | 1 |');
    const twice = JSON.parse((await cli(['--json', logFile, logFile])).stdout);
    expect(twice.lines.access).toBe(2 * REQUESTS);
    const missing = await cli([join(dir, 'nope.log')]);
    expect([missing.code, missing.stderr.trim()]).toEqual([1, `report: cannot read ${join(dir, 'nope.log')}`]);
  });
});

describe('report over what the gateway itself logs', () => {
  let legacy: LegacyV1;
  beforeAll(async () => {
    legacy = await legacyV1();
  });
  afterAll(() => legacy.close());

  it('names callers, their v1 places and routes, and the differences found, and never a secret', async () => {
    legacy.inject = new Set(['lowercaseRank']);
    const t = migrationApp(legacy, { V1_COMPARE_PERCENT: '100' });
    try {
      await (await t.get('/v1/species?key=demo-project-key&q=oak', {})).text();
      await (await t.get('/api/v1/species/ABBA', { 'x-api-key': 'demo-personal-token' })).text();
      await (await t.get('/v2/species/ABBA', { Authorization: DEMO.personalToken })).text();
      await (await t.get('/v1/species', { 'x-api-key': 'wrong' })).text();
      await t.settled();
    } finally {
      legacy.inject = new Set();
    }
    const text = t.logs.map((l) => JSON.stringify(l)).join('\n');
    const report = await buildReport(['-'], Readable.from([text]));
    expect(report.unauthenticated_v1_calls).toBe(1);
    expect(report.subjects.map((s) => [s.subject, s.v1_calls, s.v2_calls, s.v1_credentials, s.v1_routes, s.calls_v2])).toEqual([
      ['member:demo-member', 1, 1, { 'v1:x-api-key': 1 }, { 'GET /species/{id}': 1 }, true],
      ['project:demo', 1, 0, { 'v1:query': 1 }, { 'GET /species': 1 }, false],
    ]);
    expect(report.parity.routes).toEqual([
      { route: 'GET /species', compared: 1, matched: 1, match_rate: 1, not_made: 0 },
      { route: 'GET /species/{id}', compared: 1, matched: 0, match_rate: 0, not_made: 0 },
    ]);
    expect(report.parity.paths.map((p) => [p.route, p.json_path, p.differences])).toEqual([['GET /species/{id}', 'rank', 1]]);
    const shown = markdown(report);
    expect(shown).toContain('| `GET /species/{id}` | `rank` | 1 | 100% |');
    for (const secret of ['demo-project-key', 'demo-personal-token']) expect(`${text}\n${shown}`).not.toContain(secret);
  });
});
