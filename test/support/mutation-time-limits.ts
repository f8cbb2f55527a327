/**
 * A setup file of the mutation run (vitest.mutation.config.ts): each test file's time limits under a
 * mutant, from its own times in Stryker's first test run.
 *
 * Stryker stops a mutant's run at 1.5 x its tests' time in the first run + `timeoutMS` + that run's
 * overhead: the start-up of every test file of the group (1.4-8.7 s here), though a mutant's run starts
 * one or two. A mutant that makes a test wait forever (a server that never closes, an answer that
 * never comes) therefore held its worker for that whole overhead, then cost a restart. Here the
 * test's own clock bounds it, without the overhead: a test may take twice the longest test of its
 * file in the first run + `timeoutMS` (at least 2 s), a hook twice the whole file's time +
 * `timeoutMS`. Twice, not Stryker's 1.5: the first run may have had the machine to itself, and a
 * mutant's run shares it with another group's. A test that runs past its limit fails as a test does:
 * the mutant is killed, and the worker goes on. Stryker's own limit still stands behind it.
 *
 * The first run (`inject('mode') === 'dry-run'`) records each file's times in the directory the
 * config provides (`mutationTimeLimits`: the sandbox's `.mutation-times/`, with stryker.config.json's
 * `timeoutMS`); a mutant's run (`'mutant'`) reads them. Outside Stryker it does nothing. A file
 * without recorded times keeps the config's limits.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, expect, inject, vi } from 'vitest';

/** What the first run recorded of one test file: its longest test and its whole time, in ms. */
export interface FileTimes {
  longestTest: number;
  file: number;
}

/** The limits a file's tests and hooks get under a mutant, from what the first run recorded and stryker.config.json's `timeoutMS`. */
export function limitsFor(times: FileTimes, timeoutMS: number): { testTimeout: number; hookTimeout: number } {
  const limit = (ms: number) => Math.max(2000, Math.ceil(2 * ms + timeoutMS));
  return { testTimeout: limit(times.longestTest), hookTimeout: limit(times.file) };
}

const mode = inject('mode');
const settings = inject('mutationTimeLimits');
const testPath = expect.getState().testPath;

if (mode !== undefined && settings !== undefined && testPath !== undefined) {
  const record = join(settings.dir, `${testPath.replace(/[^\w.-]+/g, '_')}.json`);
  if (mode === 'dry-run') {
    const started = performance.now();
    let testStarted = 0;
    let longestTest = 0;
    beforeEach(() => {
      testStarted = performance.now();
    });
    afterEach(() => {
      longestTest = Math.max(longestTest, performance.now() - testStarted);
    });
    afterAll(() => {
      mkdirSync(settings.dir, { recursive: true });
      const times: FileTimes = { longestTest, file: performance.now() - started };
      writeFileSync(record, JSON.stringify(times));
    });
  } else if (existsSync(record)) {
    vi.setConfig(limitsFor(JSON.parse(readFileSync(record, 'utf8')) as FileTimes, settings.timeoutMS));
  }
}
