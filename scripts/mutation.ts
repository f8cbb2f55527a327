/**
 * `npm run mutation`: StrykerJS over every module of src/ but those it excludes, in groups
 * (scripts/mutation-groups.ts), then a table of every group's score.
 *
 *   npm run mutation                        every group, two at a time (one a core), longest first
 *   npm run mutation -- core-pure rate-limit those groups only
 *   npm run mutation -- --list              the groups, their modules and tests
 *   npm run mutation -- --summary           the table from the last reports, nothing run (of every
 *                                           group: written into TESTING.md too)
 *   npm run mutation -- core-pure --dryRunOnly  other flags go to Stryker (here: only its first test run)
 *
 * Each group runs with its own tests (`MUTATION_TESTS`) and keeps its own incremental file, JSON
 * and HTML report under `reports/mutation/` (`<group>-incremental.json`, `<group>.json`,
 * `<group>.html`), so running it again tests only the mutants whose code or tests changed.
 * `MUTATION_GROUPS_AT_ONCE` sets how many groups run side by side (default: the machine's cores),
 * `MUTATION_CONCURRENCY` Stryker's workers a group (default: the config's, shared among them); see
 * `sharing`. `reports/mutation/run.json` records the last whole run's groups and time, when no group
 * failed. Exits non-zero when a run fails.
 *
 * Stryker copies the tree into a sandbox per group. `generated/` is brought current here, once, and
 * the sandbox's tests use the copy (vitest.mutation.config.ts): compiled again there, by the
 * instrumented compiler, it would cost every group's first test run seconds, and every timed-out
 * mutant as much again, since Stryker adds the first run's overhead to each mutant's time limit.
 * For the same reason Stryker leaves the sandbox's sources as they are (`disableTypeChecks: false`;
 * its default writes `// @ts-nocheck` into every module, which changes the compiler's sources and
 * so the compiled dataset's inputs): nothing in the sandbox type-checks them.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CompiledReport, compileChecker, refusedByCompiler, UNDETECTED } from './mutation-compile';
import { compileIfStale } from './compile-data';
import { GROUPS, type MutationGroup } from './mutation-groups';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const REPORTS = join(ROOT, 'reports/mutation');

/** What a group's report counts, by Stryker's statuses, and the score Stryker gives it. */
export interface Tally {
  mutants: number;
  killed: number;
  timedOut: number;
  survived: number;
  noCoverage: number;
  /** Mutants that did not compile or crashed the runtime: not counted in the score. */
  errors: number;
  /** Left out (`--ignoreStatic`): not counted either. */
  ignored: number;
  /** (killed + timed out) / (killed + timed out + survived + no coverage), in percent; null when nothing was tested. */
  score: number | null;
}

interface Report {
  files: Record<string, { mutants: Array<{ id?: string; status: string; location?: { start: { line: number } } }> }>;
}

type Counts = Omit<Tally, 'score'>;

/** Stryker's score of `counts`: detected over detected, survived and not covered. */
function scored(counts: Counts): Tally {
  const detected = counts.killed + counts.timedOut;
  const valid = detected + counts.survived + counts.noCoverage;
  return { ...counts, score: valid === 0 ? null : (100 * detected) / valid };
}

/** Counts a Stryker JSON report (mutation-testing-report-schema) the way Stryker scores it. */
export function tally(report: Report): Tally {
  const t: Counts = { mutants: 0, killed: 0, timedOut: 0, survived: 0, noCoverage: 0, errors: 0, ignored: 0 };
  for (const file of Object.values(report.files)) {
    for (const { status } of file.mutants) {
      t.mutants++;
      if (status === 'Killed') t.killed++;
      else if (status === 'Timeout') t.timedOut++;
      else if (status === 'Survived') t.survived++;
      else if (status === 'NoCoverage') t.noCoverage++;
      else if (status === 'CompileError' || status === 'RuntimeError') t.errors++;
      else if (status === 'Ignored') t.ignored++;
      else throw new Error(`unknown mutant status ${JSON.stringify(status)}`);
    }
  }
  return scored(t);
}

/** The sum of several tallies, scored again as one. */
export function combined(tallies: Tally[]): Tally {
  const sum: Counts = { mutants: 0, killed: 0, timedOut: 0, survived: 0, noCoverage: 0, errors: 0, ignored: 0 };
  for (const t of tallies) for (const key of Object.keys(sum) as (keyof Counts)[]) sum[key] += t[key];
  return scored(sum);
}

/** The Stryker configuration of one group: the project's, narrowed to the group's modules and files, with `concurrency` workers. */
function groupConfig(group: MutationGroup, concurrency: number): string {
  const base = JSON.parse(readFileSync(join(ROOT, 'stryker.config.json'), 'utf8')) as Record<string, unknown>;
  delete base.$schema;
  const config = {
    ...base,
    mutate: group.mutate,
    ignoreStatic: group.ignoreStatic === true,
    incrementalFile: `reports/mutation/${group.name}-incremental.json`,
    jsonReporter: { fileName: `reports/mutation/${group.name}.json` },
    htmlReporter: { fileName: `reports/mutation/${group.name}.html` },
    concurrency,
  };
  const file = join(REPORTS, `${group.name}.config.json`);
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
  return file;
}

/**
 * How the groups share the machine: `atOnce` groups at a time (`MUTATION_GROUPS_AT_ONCE`, default the
 * machine's cores), each with an equal share of Stryker's workers (the config's `concurrency`, or
 * `MUTATION_CONCURRENCY` a group). Two groups of one worker each keep both cores busy where one
 * group of two leaves a core idle: while Stryker starts, instruments, makes the first test run
 * (one worker) and writes its reports, and while its last slow mutants finish. That pays for small
 * groups; a large one on one worker takes up to twice as long, so beside another it gains little
 * (TESTING.md has the figures).
 */
export function sharing(groups: number, cores: number, configured: number, env: NodeJS.ProcessEnv = {}): { atOnce: number; concurrency: number } {
  const wanted = Number(env.MUTATION_GROUPS_AT_ONCE ?? cores);
  const atOnce = Math.max(1, Math.min(groups, Number.isInteger(wanted) ? wanted : cores));
  const concurrency = env.MUTATION_CONCURRENCY ? Number(env.MUTATION_CONCURRENCY) : Math.max(1, Math.floor(configured / atOnce));
  return { atOnce, concurrency };
}

/**
 * Runs one group; its Stryker output goes to the terminal when it runs alone, else to
 * `reports/mutation/<group>.log`. Resolves whether Stryker succeeded.
 */
function run(group: MutationGroup, strykerFlags: string[], concurrency: number, alone: boolean): Promise<boolean> {
  mkdirSync(REPORTS, { recursive: true });
  const started = Date.now();
  const log = join(REPORTS, `${group.name}.log`);
  console.log(
    `\n== ${group.name}: ${group.mutate.length} modules, ${group.tests.length} test files${alone ? '' : ` (output in ${log.slice(ROOT.length + 1)})`}`,
  );
  const output = alone ? undefined : openSync(log, 'w');
  const child = spawn('npx', ['stryker', 'run', groupConfig(group, concurrency), ...strykerFlags], {
    cwd: ROOT,
    stdio: output === undefined ? 'inherit' : ['ignore', output, output],
    // Node's compile cache: each mutant's test run starts a worker that compiles vitest's modules again.
    env: { NODE_COMPILE_CACHE: join(ROOT, 'node_modules/.cache/node-compile'), ...process.env, MUTATION_TESTS: group.tests.join(',') },
  });
  // The child has its own copy of the log's descriptor.
  if (output !== undefined) closeSync(output);
  return new Promise((done) => {
    child.on('close', (code) => {
      const minutes = (Date.now() - started) / 60_000;
      writeFileSync(join(REPORTS, `${group.name}.time.json`), JSON.stringify({ minutes, finished: new Date().toISOString() }));
      console.log(`== ${group.name}: ${code === 0 ? 'done' : `Stryker exited with ${code}`} in ${minutes.toFixed(1)} minutes`);
      done(code === 0);
    });
  });
}

/** Runs `groups`, `atOnce` at a time, the longest last time first (new ones first of all); the names of those that failed. */
async function runAll(groups: MutationGroup[], strykerFlags: string[]): Promise<string[]> {
  const configured = Number((JSON.parse(readFileSync(join(ROOT, 'stryker.config.json'), 'utf8')) as { concurrency?: number }).concurrency ?? 1);
  const { atOnce, concurrency } = sharing(groups.length, availableParallelism(), configured, process.env);
  const lastMinutes = (g: MutationGroup) => readJson<{ minutes: number }>(join(REPORTS, `${g.name}.time.json`))?.minutes ?? Number.POSITIVE_INFINITY;
  const queue = [...groups].sort((a, b) => lastMinutes(b) - lastMinutes(a));
  const failed: string[] = [];
  const whole = groups.length === GROUPS.length;
  // The last whole run's record describes reports this run replaces.
  if (whole) rmSync(join(REPORTS, 'run.json'), { force: true });
  const started = Date.now();
  const worker = async () => {
    for (let group = queue.shift(); group; group = queue.shift()) {
      if (!(await run(group, strykerFlags, concurrency, atOnce === 1))) failed.push(group.name);
    }
  };
  await Promise.all(Array.from({ length: atOnce }, worker));
  // A run with a group that failed is not a whole run: no record, so the table sums the groups' times.
  if (!whole || failed.length > 0) return failed;
  const record: WholeRun = {
    groups: groups.map((g) => g.name),
    atOnce,
    concurrency,
    minutes: (Date.now() - started) / 60_000,
    finished: new Date().toISOString(),
  };
  writeFileSync(join(REPORTS, 'run.json'), `${JSON.stringify(record, null, 2)}\n`);
  return failed;
}

/** The last whole run of `npm run mutation` (`reports/mutation/run.json`): its groups and how long it took from first to last. */
interface WholeRun {
  groups: string[];
  atOnce: number;
  concurrency: number;
  minutes: number;
  finished: string;
}

/** Made on first use (some seconds: the project's program), used for every group. */
let checker: ReturnType<typeof compileChecker> | undefined;

/** Writes `<group>.refused.json` (the undetected mutants the compiler refuses) where it is missing or older than the report. */
function judgeByCompiler(group: MutationGroup): void {
  const reportFile = join(REPORTS, `${group.name}.json`);
  const refusedFile = join(REPORTS, `${group.name}.refused.json`);
  if (!existsSync(reportFile) || (existsSync(refusedFile) && statSync(refusedFile).mtimeMs >= statSync(reportFile).mtimeMs)) return;
  checker ??= compileChecker(ROOT);
  const refused = refusedByCompiler(ownModules(JSON.parse(readFileSync(reportFile, 'utf8')) as CompiledReport, group), checker);
  writeFileSync(refusedFile, `${JSON.stringify(refused, null, 2)}\n`);
}

function readJson<T>(file: string): T | undefined {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as T) : undefined;
}

const pct = (score: number | null) => (score === null ? 'n/a' : `${score.toFixed(1)} %`);

const JUDGED_START = '<!-- judged survivors -->';
const JUDGED_END = '<!-- end of judged survivors -->';

/**
 * The lines of each module whose survivors docs/mutation-survivors.md judges: every `src/….ts:N`
 * or `src/….ts:N-M` named between its markers (a judgement names the lines it speaks of).
 */
export function judgedLines(text: string): Map<string, Array<[number, number]>> {
  const start = text.indexOf(JUDGED_START);
  const end = text.indexOf(JUDGED_END);
  const judged = new Map<string, Array<[number, number]>>();
  if (start < 0 || end < start) return judged;
  for (const m of text.slice(start, end).matchAll(/`(src\/[^`:\s]+\.ts):(\d+)(?:-(\d+))?`/g)) {
    const from = Number(m[2]);
    const ranges = judged.get(m[1]!) ?? [];
    ranges.push([from, m[3] === undefined ? from : Number(m[3])]);
    judged.set(m[1]!, ranges);
  }
  return judged;
}

/** How many of a report's undetected mutants are judged: refused by the compiler, or on a line the survivors page judges. */
export function judgedCount(report: Report, refused: Record<string, string>, lines: Map<string, Array<[number, number]>>): number {
  let count = 0;
  for (const [file, { mutants }] of Object.entries(report.files)) {
    const ranges = lines.get(file) ?? [];
    for (const m of mutants) {
      if (!UNDETECTED.has(m.status)) continue;
      const line = m.location?.start.line ?? 0;
      if ((m.id !== undefined && m.id in refused) || ranges.some(([from, to]) => line >= from && line <= to)) count++;
    }
  }
  return count;
}

const SURVIVORS_PAGE = join(ROOT, 'docs/mutation-survivors.md');

/** The part of a report about the modules `group` mutates. */
export function ownModules<R extends { files: Record<string, unknown> }>(report: R, group: Pick<MutationGroup, 'mutate'>): R {
  return { ...report, files: Object.fromEntries(Object.entries(report.files).filter(([file]) => group.mutate.includes(file))) };
}

/** The table of every group's last report (and what took how long), as Markdown lines. */
export function summaryTable(
  groups: MutationGroup[],
  read: (file: string) => unknown = (file) => readJson(file),
  judgements: Map<string, Array<[number, number]>> = judgedLines(existsSync(SURVIVORS_PAGE) ? readFileSync(SURVIVORS_PAGE, 'utf8') : ''),
): string[] {
  const lines = [
    '| group | mutants | killed | timed out | survived | no coverage | of these, refused by the compiler | judged | errors | ignored | score | minutes |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const tallies: Tally[] = [];
  let minutes = 0;
  let refusedTotal = 0;
  let judgedTotal = 0;
  for (const group of groups) {
    const report = read(join(REPORTS, `${group.name}.json`)) as Report | undefined;
    const time = read(join(REPORTS, `${group.name}.time.json`)) as { minutes: number } | undefined;
    const refused = read(join(REPORTS, `${group.name}.refused.json`)) as Record<string, string> | undefined;
    if (!report) {
      lines.push(`| ${group.name} | no report yet | | | | | | | | | | |`);
      continue;
    }
    // Stryker's incremental file keeps the results of modules a group no longer mutates (a group
    // split since): the group's own modules only.
    const own = ownModules(report, group);
    const t = tally(own);
    tallies.push(t);
    minutes += time?.minutes ?? 0;
    const refusedCount = refused ? Object.keys(refused).length : undefined;
    if (refusedCount !== undefined) refusedTotal += refusedCount;
    const judged = judgedCount(own, refused ?? {}, judgements);
    judgedTotal += judged;
    lines.push(
      `| ${group.name} | ${t.mutants} | ${t.killed} | ${t.timedOut} | ${t.survived} | ${t.noCoverage} | ${refusedCount ?? ''} | ${judged} | ${t.errors} | ${t.ignored} | ${pct(t.score)} | ${time ? time.minutes.toFixed(1) : ''} |`,
    );
  }
  const all = combined(tallies);
  // Groups run side by side: when the last whole run ran exactly these, its own time is the total.
  const run = read(join(REPORTS, 'run.json')) as WholeRun | undefined;
  if (run && run.groups.length === groups.length && groups.every((g) => run.groups.includes(g.name))) minutes = run.minutes;
  lines.push(
    `| **${tallies.length} of ${groups.length} groups** | ${all.mutants} | ${all.killed} | ${all.timedOut} | ${all.survived} | ${all.noCoverage} | ${refusedTotal} | ${judgedTotal} | ${all.errors} | ${all.ignored} | **${pct(all.score)}** | ${minutes.toFixed(1)} |`,
  );
  return lines;
}

const TABLE_START = '<!-- mutation table: written by `npm run mutation -- --summary` -->';
const TABLE_END = '<!-- end of mutation table -->';

/** `text` with the lines between the table's markers replaced by `table`; refuses a text without them. */
export function withTable(text: string, table: string[]): string {
  const start = text.indexOf(TABLE_START);
  const end = text.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`TESTING.md has no ${TABLE_START} ... ${TABLE_END}`);
  return `${text.slice(0, start + TABLE_START.length)}\n${table.join('\n')}\n${text.slice(end)}`;
}

/** Prints the table and writes it into TESTING.md (every group only: a partial table would replace the whole one). */
function summary(groups: MutationGroup[]): void {
  groups.forEach(judgeByCompiler);
  const table = summaryTable(groups);
  console.log(`\n${table.join('\n')}`);
  if (groups.length !== GROUPS.length) return;
  const testing = join(ROOT, 'TESTING.md');
  writeFileSync(testing, withTable(readFileSync(testing, 'utf8'), table));
  console.log('\n(written into TESTING.md)');
}

async function main(args: string[]): Promise<number> {
  if (args.includes('--list')) {
    for (const g of GROUPS) console.log(`${g.name}\n  mutate: ${g.mutate.join(' ')}\n  tests:  ${g.tests.join(' ')}`);
    return 0;
  }
  const names = args.filter((a) => !a.startsWith('--'));
  const unknown = names.filter((n) => !GROUPS.some((g) => g.name === n));
  if (unknown.length > 0) {
    console.error(`unknown group: ${unknown.join(', ')} (npm run mutation -- --list)`);
    return 2;
  }
  const chosen = names.length > 0 ? GROUPS.filter((g) => names.includes(g.name)) : GROUPS;
  if (args.includes('--summary')) {
    summary(chosen);
    return 0;
  }
  const strykerFlags = args.filter((a) => a.startsWith('--'));
  // Each group's sandbox is a copy of this tree, generated/ included, and does not compile it again.
  compileIfStale();
  const failed = await runAll(chosen, strykerFlags);
  summary(chosen);
  if (failed.length > 0) console.error(`\nStryker failed for: ${failed.join(', ')}`);
  return failed.length > 0 ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
