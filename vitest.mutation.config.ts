import { existsSync, readdirSync, readFileSync, statSync, symlinkSync, utimesSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * Inside Stryker's sandbox (`.stryker-tmp/sandbox-*`, a copy of the tree made for each group), the
 * compiled dataset's pieces are the tree's own: stryker.config.json leaves generated/assets (thousands
 * of small files, seconds to copy) out of the copy, and the sandbox links to them instead.
 */
const sandbox = process.env.STRYKER_MUTATOR_WORKER !== undefined && basename(dirname(process.cwd())) === '.stryker-tmp';
if (sandbox && !existsSync('generated/assets')) {
  try {
    symlinkSync(resolve('../../generated/assets'), join('generated', 'assets'), 'dir');
  } catch (err) {
    // The group's other Stryker worker linked it first.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}
/**
 * The copy gives its files the time they were copied, so the compiled dataset could look older than
 * the fixture copied after it, and a gateway process a test starts would refuse to start. The
 * sandbox's fixture and compiled files take the tree's times back.
 */
if (sandbox) {
  for (const dir of ['fixtures', 'generated']) {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const own = statSync(resolve('../..', dir, entry.name));
      utimesSync(join(dir, entry.name), own.atime, own.mtime);
    }
  }
}

/**
 * The tests mutation testing runs (`npm run mutation`, stryker.config.json): the Node tests in
 * process. Left out: the workerd project (its pool cannot run inside Stryker's test runner), and
 * Node tests whose subject runs in another process (a gateway, a script, a browser), which cannot
 * see the mutant under test and would only make every run slower.
 */
/**
 * `MUTATION_TESTS=test/node/a.test.ts,test/node/b.test.ts` narrows a run to those files: for one
 * module, the tests that are about it, when the whole Node suite is more than the machine can run
 * under every mutant in the time at hand (most tests reach most modules through the app). Files
 * named there run even if the list below leaves them out of a whole run: the Redis limiter's tests
 * start their own `redis-server`, but the limiter they test runs in process and sees the mutant.
 */
const only = process.env.MUTATION_TESTS?.split(',').filter(Boolean);

export default defineConfig({
  test: {
    // Instrumented code on a shared machine runs slower than `npm test`: generous bounds.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    onConsoleLog: (log) => !/^\{"(time|level":"info)"/.test(log),
    include: only ?? ['test/node/**/*.test.ts', 'test/scripts/**/*.test.ts'],
    exclude: only
      ? []
      : [
          'test/scripts/check-docs.process.test.ts',
          'test/scripts/credentials.process.test.ts',
          'test/node/openapi/docs-page.test.ts',
          'test/node/node/fuzz.process.test.ts',
          'test/scripts/mutation-time-limits.process.test.ts',
          'test/node/node.process.test.ts',
          'test/node/node/http-server.process.test.ts',
          'test/node/node.startup.process.test.ts',
          'test/scripts/production-build.process.test.ts',
          'test/node/services/rate-limit/redis-rate-limiter.test.ts',
          'test/scripts/report.process.test.ts',
        ],
    environment: 'node',
    // Under a mutant, each file's tests and hooks get limits from their own first-run times (Stryker's adds its start-up).
    setupFiles: ['test/support/mutation-time-limits.ts'],
    provide: {
      mutationTimeLimits: {
        dir: resolve('.mutation-times'),
        timeoutMS: (JSON.parse(readFileSync('stryker.config.json', 'utf8')) as { timeoutMS: number }).timeoutMS,
      },
    },
    // Inside the sandbox (a copy of the tree `npm run mutation` brought current first), the compiled
    // dataset is the unmutated compiler's: checking it again there would find the instrumented
    // compiler's sources changed and compile the whole fixture in the first test run.
    globalSetup: [...(sandbox ? [] : ['test/support/compiled-data-setup.ts']), 'test/support/dataset-sample-setup.ts'],
  },
});
