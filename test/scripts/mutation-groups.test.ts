/**
 * `npm run mutation` as a standing check: every module under the directories Stryker mutates is in
 * exactly one group (or excluded with a reason), so a new module cannot drop out of mutation
 * testing unnoticed; every group names test files that exist and that its runs can load; and the
 * score the table prints is Stryker's.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EXCLUDED, GROUPS } from '../../scripts/mutation-groups';
import { combined, judgedCount, judgedLines, ownModules, sharing, summaryTable, tally, withTable } from '../../scripts/mutation';
import { compileChecker, mutatedSource, refusedByCompiler } from '../../scripts/mutation-compile';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The `.ts` files under `dir`, as paths from the project's root. */
function modulesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return modulesUnder(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** The directories `stryker.config.json` mutates (`src/x/**\/*.ts`). */
function mutatedDirectories(): string[] {
  const config = JSON.parse(readFileSync(join(ROOT, 'stryker.config.json'), 'utf8')) as { mutate: string[] };
  return config.mutate.map((glob) => {
    const dir = glob.replace(/\/\*\*\/\*\.ts$/, '');
    expect(dir, `${glob} is a directory's modules`).not.toBe(glob);
    return dir;
  });
}

describe('the mutation groups', () => {
  it('cover every module under the mutated directories exactly once, or exclude it with a reason', () => {
    const modules = mutatedDirectories().flatMap(modulesUnder).sort();
    expect(modules.length).toBeGreaterThan(80);
    const count = new Map<string, number>();
    for (const group of GROUPS) for (const file of group.mutate) count.set(file, (count.get(file) ?? 0) + 1);
    for (const file of modules) {
      if (file in EXCLUDED) {
        expect(count.get(file), `${file} is excluded and grouped`).toBeUndefined();
        expect(EXCLUDED[file]!.length).toBeGreaterThan(20);
      } else expect(count.get(file), `${file} in how many groups`).toBe(1);
    }
    // Nothing names a module that does not exist (a rename would leave it unmutated).
    for (const file of [...count.keys(), ...Object.keys(EXCLUDED)]) expect(modules, file).toContain(file);
  });

  it('have distinct names, usable as file names, and Node test files that exist', () => {
    const names = GROUPS.map((g) => g.name);
    expect(new Set(names).size).toBe(names.length);
    for (const group of GROUPS) {
      expect(group.name).toMatch(/^[a-z0-9-]+$/);
      expect(group.tests.length, group.name).toBeGreaterThan(0);
      for (const test of group.tests) {
        expect(test, group.name).toMatch(/^test\/(node|scripts)\/([a-z0-9-]+\/)*[a-z0-9.-]+\.test\.ts$/);
        expect(existsSync(join(ROOT, test)), test).toBe(true);
      }
    }
  });
});

describe('the score the table prints', () => {
  const report = (...statuses: string[]) => ({ files: { 'src/a.ts': { mutants: statuses.map((status) => ({ status })) } } });

  it("is Stryker's: detected over detected, survived and not covered; errors and static mutants left out", () => {
    const t = tally(report('Killed', 'Killed', 'Timeout', 'Survived', 'NoCoverage', 'CompileError', 'RuntimeError', 'Ignored'));
    expect(t).toMatchObject({ mutants: 8, killed: 2, timedOut: 1, survived: 1, noCoverage: 1, errors: 2, ignored: 1 });
    expect(t.score).toBe(60);
  });

  it('is none when no mutant was tested, and refuses a status it does not know', () => {
    expect(tally(report('CompileError', 'Ignored')).score).toBeNull();
    expect(() => tally(report('Killed', 'Pending'))).toThrow(/Pending/);
  });

  it('of several groups is their mutants scored together, not an average of their scores', () => {
    const small = tally(report('Survived'));
    const large = tally(report(...Array(9).fill('Killed')));
    const all = combined([small, large]);
    expect(all.score).toBe(90);
    expect(all.mutants).toBe(10);
  });
});

describe('the table TESTING.md shows', () => {
  const report = (file: string, ...statuses: string[]) => ({ files: { [file]: { mutants: statuses.map((status) => ({ status })) } } });
  const groups = [
    { name: 'one', mutate: ['src/a.ts'], tests: ['test/node/a.test.ts'] },
    { name: 'two', mutate: ['src/b.ts'], tests: ['test/node/b.test.ts'] },
    { name: 'three', mutate: ['src/c.ts'], tests: ['test/node/c.test.ts'] },
  ];
  const files: Record<string, unknown> = {
    'one.json': report('src/a.ts', 'Killed', 'Killed', 'Killed', 'Survived'),
    'one.time.json': { minutes: 1.25 },
    'one.refused.json': {},
    'two.json': report('src/b.ts', 'Killed', 'NoCoverage', 'Ignored', 'RuntimeError'),
    'two.time.json': { minutes: 2 },
    'two.refused.json': { 7: 'src/b.ts:3: Type ... is not assignable' },
  };
  const read = (file: string) => files[file.slice(file.lastIndexOf('/') + 1)];

  it("has a row per group from its report, one for a group without one, and the whole run's score and minutes", () => {
    // The compiler's refusals are counted, not taken off the score: they are survivors judged.
    expect(summaryTable(groups, read, new Map()).slice(2)).toEqual([
      '| one | 4 | 3 | 0 | 1 | 0 | 0 | 0 | 0 | 0 | 75.0 % | 1.3 |',
      // The refusal names a mutant id the report does not hold: counted as refused, not judged.
      '| two | 4 | 1 | 0 | 0 | 1 | 1 | 0 | 1 | 1 | 50.0 % | 2.0 |',
      '| three | no report yet | | | | | | | | | | |',
      '| **2 of 3 groups** | 8 | 4 | 0 | 1 | 1 | 1 | 0 | 1 | 1 | **66.7 %** | 3.3 |',
    ]);
  });

  it('counts only the modules a group mutates, not those its incremental file kept from before a split', () => {
    const stale = { files: { ...report('src/a.ts', 'Killed').files, ...report('src/old.ts', 'Survived', 'Survived').files } };
    const read = (file: string) => (file.endsWith('/one.json') ? stale : file.endsWith('/one.time.json') ? { minutes: 1 } : undefined);
    expect(summaryTable([groups[0]!], read, new Map()).slice(2, 3)).toEqual(['| one | 1 | 1 | 0 | 0 | 0 |  | 0 | 0 | 0 | 100.0 % | 1.0 |']);
    expect(Object.keys(ownModules(stale, groups[0]!).files)).toEqual(['src/a.ts']);
  });

  it("takes the last whole run's own time for the total when that run ran exactly these groups (they run side by side)", () => {
    const withRun = (groups: string[]) => (file: string) => (file.endsWith('/run.json') ? { groups, minutes: 2.5 } : read(file));
    const total = (names: string[]) => summaryTable(groups, withRun(names), new Map()).at(-1)!.split(' | ').at(-1);
    expect(total(['one', 'two', 'three'])).toBe('2.5 |');
    expect(total(['three', 'two', 'one'])).toBe('2.5 |');
    // A run of some of them, or of others too, says nothing of these: the groups' own minutes are summed.
    expect(total(['one', 'two'])).toBe('3.3 |');
    expect(total(['one', 'two', 'four'])).toBe('3.3 |');
    expect(total(['one', 'two', 'three', 'four'])).toBe('3.3 |');
  });

  it('runs as many groups at once as the machine has cores, sharing the configured workers among them', () => {
    expect(sharing(33, 2, 2)).toEqual({ atOnce: 2, concurrency: 1 });
    // One group alone has them all; never fewer than one worker, nor more groups at once than there are.
    expect(sharing(1, 2, 2)).toEqual({ atOnce: 1, concurrency: 2 });
    expect(sharing(33, 8, 2)).toEqual({ atOnce: 8, concurrency: 1 });
    expect(sharing(33, 4, 8)).toEqual({ atOnce: 4, concurrency: 2 });
    expect(sharing(33, 2, 2, { MUTATION_GROUPS_AT_ONCE: '1' })).toEqual({ atOnce: 1, concurrency: 2 });
    expect(sharing(33, 2, 2, { MUTATION_GROUPS_AT_ONCE: '3', MUTATION_CONCURRENCY: '2' })).toEqual({ atOnce: 3, concurrency: 2 });
    expect(sharing(2, 2, 2, { MUTATION_GROUPS_AT_ONCE: '0' })).toEqual({ atOnce: 1, concurrency: 2 });
    expect(sharing(2, 2, 2, { MUTATION_GROUPS_AT_ONCE: 'two' })).toEqual({ atOnce: 2, concurrency: 1 });
  });

  it('counts as judged the undetected mutants the compiler refuses or the survivors page names by line', () => {
    const page = [
      '`src/a.ts:1` outside the markers does not count',
      '<!-- judged survivors -->',
      '- `src/a.ts:3-4`: equivalent; `src/b.ts:9` too',
      '<!-- end of judged survivors -->',
    ].join('\n');
    const lines = judgedLines(page);
    expect([...lines]).toEqual([
      ['src/a.ts', [[3, 4]]],
      ['src/b.ts', [[9, 9]]],
    ]);
    const at = (id: string, status: string, line: number) => ({ id, status, location: { start: { line } } });
    const report = {
      files: {
        'src/a.ts': {
          mutants: [
            at('1', 'Survived', 1),
            at('2', 'Survived', 3),
            at('3', 'NoCoverage', 4),
            at('4', 'Killed', 4),
            at('5', 'Survived', 5),
            at('6', 'Survived', 6),
          ],
        },
      },
    };
    // 2 and 3 by the page, 6 by the compiler; 4 was detected; 1 and 5 are not judged.
    expect(judgedCount(report, { 6: 'src/a.ts:6: ...' }, lines)).toBe(3);
    expect(judgedLines('no markers').size).toBe(0);
  });

  it('replaces what stands between its markers, and nothing else; a text without them is refused', () => {
    const start = '<!-- mutation table: written by `npm run mutation -- --summary` -->';
    const end = '<!-- end of mutation table -->';
    const text = `before\n${start}\n| old |\n${end}\nafter\n`;
    expect(withTable(text, ['| new |', '| rows |'])).toBe(`before\n${start}\n| new |\n| rows |\n${end}\nafter\n`);
    expect(() => withTable('no markers', ['| new |'])).toThrow(/no <!-- mutation table/);
  });
});

describe("the compiler's first judgement of the survivors", () => {
  const source = 'export function twice(n: number): number {\n  return n * 2;\n}\n';
  const mutant = (id: string, status: string, start: [number, number], end: [number, number], replacement: string) => ({
    id,
    status,
    replacement,
    location: { start: { line: start[0], column: start[1] }, end: { line: end[0], column: end[1] } },
  });

  it('applies a mutant where its report places it (lines and columns from 1, the end not included)', () => {
    expect(mutatedSource(source, { line: 2, column: 10 }, { line: 2, column: 15 }, 'n / 2')).toBe(source.replace('n * 2', 'n / 2'));
  });

  it('names the undetected mutants that do not type-check, and no other', () => {
    const files: Record<string, string> = {};
    const check = (file: string, text: string) => (
      (files[file] = text), text.includes('"two"') ? "Type 'string' is not assignable to type 'number'." : undefined
    );
    const report = {
      files: {
        'src/twice.ts': {
          source,
          mutants: [
            mutant('1', 'Survived', [2, 10], [2, 15], '"two"'),
            mutant('2', 'NoCoverage', [2, 10], [2, 15], 'n / 2'),
            mutant('3', 'Killed', [2, 10], [2, 15], '"two"'),
          ],
        },
      },
    };
    expect(refusedByCompiler(report, check)).toEqual({ 1: "src/twice.ts:2: Type 'string' is not assignable to type 'number'." });
  });

  it('asks the real compiler over this project: a type error refused, a change of behaviour not', () => {
    const check = compileChecker(fileURLToPath(new URL('../..', import.meta.url)));
    const file = 'src/core/text.ts';
    const text = readFileSync(join(ROOT, file), 'utf8');
    expect(check(file, text)).toBeUndefined();
    expect(check(file, `${text}\nexport const broken: number = 'not a number';\n`)).toMatch(/not assignable to type 'number'/);
    // An unused name is not a type error here.
    expect(check(file, `${text}\nfunction unused(): void {}\n`)).toBeUndefined();
  }, 60_000);
});
