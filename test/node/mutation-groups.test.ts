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
import { combined, tally } from '../../scripts/mutation';

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
        expect(test, group.name).toMatch(/^test\/node\/[a-z0-9-]+\.test\.ts$/);
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
