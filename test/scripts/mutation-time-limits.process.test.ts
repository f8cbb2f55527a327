/**
 * The mutation run's time limits (test/support/mutation-time-limits.ts): vitest run as a process
 * over a file of two tests, once as Stryker's first run and once as a mutant's run in which one test
 * waits for an answer that never comes.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type FileTimes, limitsFor } from '../support/mutation-time-limits';
import { ROOT, startProcess } from '../../tools/processes';

// Inside the repository, not a scratch directory under the system's: the config and the test import
// vitest, which resolves from the repository's node_modules.
const DIR = join(ROOT, 'test-output', `mutation-time-limits-${process.pid}`);
const TIMES = join(DIR, 'times');
/** Stryker's `timeoutMS` as the inner run is given it. */
const TIMEOUT_MS = 1000;

interface JsonReport {
  testResults: Array<{ assertionResults: Array<{ title: string; status: string; failureMessages: string[] }> }>;
}

/** Runs the two tests as Stryker's runner would in `mode`, and what each ended as. */
async function vitestAs(mode: 'dry-run' | 'mutant'): Promise<Record<string, { status: string; failure: string }>> {
  const out = join(DIR, `${mode}.json`);
  const vitest = await startProcess({
    command: process.execPath,
    args: ['node_modules/vitest/vitest.mjs', 'run', '--config', join(DIR, 'vitest.config.ts'), '--reporter=json', `--outputFile=${out}`],
    baseEnv: Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST'))),
    env: { MODE: mode },
    ready: () => undefined,
    earlyExit: 'resolve',
  });
  // A failed test exits 1; the report says which.
  expect([0, 1], vitest.output).toContain(vitest.exit?.code);
  const report = JSON.parse(readFileSync(out, 'utf8')) as JsonReport;
  return Object.fromEntries(report.testResults[0]!.assertionResults.map((t) => [t.title, { status: t.status, failure: t.failureMessages.join('\n') }]));
}

describe("the mutation run's time limits", () => {
  mkdirSync(DIR, { recursive: true });
  writeFileSync(
    join(DIR, 'limits.test.ts'),
    `import { inject, it } from 'vitest';
const mode = inject('mode');
const pause = () => new Promise((resolve) => setTimeout(resolve, 30));
it('answers', pause);
it('waits for an answer', async () => {
  // Under the mutant the answer never comes.
  if (mode === 'mutant') await new Promise(() => {});
  await pause();
});
`,
  );
  writeFileSync(
    join(DIR, 'vitest.config.ts'),
    `import { defineConfig } from 'vitest/config';
export default defineConfig({
  test: {
    root: ${JSON.stringify(DIR)},
    include: ['limits.test.ts'],
    setupFiles: [${JSON.stringify(join(ROOT, 'test/support/mutation-time-limits.ts'))}],
    provide: { mode: process.env.MODE, mutationTimeLimits: { dir: ${JSON.stringify(TIMES)}, timeoutMS: ${TIMEOUT_MS} } },
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
`,
  );
  afterAll(() => rmSync(DIR, { recursive: true, force: true }));

  it("records each file's times in the first run, and under a mutant stops a test that waits past its limit", async () => {
    expect(await vitestAs('dry-run')).toEqual({ answers: { status: 'passed', failure: '' }, 'waits for an answer': { status: 'passed', failure: '' } });
    const [recorded] = readdirSync(TIMES);
    const times = JSON.parse(readFileSync(join(TIMES, recorded!), 'utf8')) as FileTimes;
    expect(times.longestTest).toBeGreaterThanOrEqual(29);
    expect(times.file).toBeGreaterThan(times.longestTest);

    const { testTimeout } = limitsFor(times, TIMEOUT_MS);
    expect(testTimeout).toBeLessThan(60_000);
    const mutant = await vitestAs('mutant');
    expect(mutant.answers).toEqual({ status: 'passed', failure: '' });
    expect(mutant['waits for an answer']!.status).toBe('failed');
    expect(mutant['waits for an answer']!.failure).toContain(`Test timed out in ${testTimeout}ms`);
  }, 60_000);

  it("allows twice the longest test of the file and Stryker's timeoutMS, a hook twice the whole file, and never under 2 s", () => {
    expect(limitsFor({ longestTest: 3000, file: 10_000 }, 1000)).toEqual({ testTimeout: 7000, hookTimeout: 21_000 });
    expect(limitsFor({ longestTest: 12.2, file: 400 }, 1000)).toEqual({ testTimeout: 2000, hookTimeout: 2000 });
    expect(limitsFor({ longestTest: 600.2, file: 900 }, 1000)).toEqual({ testTimeout: 2201, hookTimeout: 2800 });
  });
});
