import { cloudflareTest } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Vitest's default on two cores is one file at a time (cores - 1). Most files wait on child
    // processes, sockets or workerd far more than they compute, so three at once keep two cores
    // busy; more only adds contention (measured in TESTING.md).
    maxWorkers: 3,
    // Guards, not measures: a test that waits on events never needs them on a healthy machine, and
    // a loaded one (a load average of 6 on two cores) must not turn a slow pass into a failure.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // The worker entry logs one JSON line per request; keep warnings and errors, drop the rest.
    onConsoleLog: (log) => !/^\{"time":"[^"]*",(?:"level":"info"|"(?!level"))/.test(log),
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          include: ['test/node/**/*.test.ts', 'test/scripts/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/support/compiled-data-setup.ts'],
        },
      },
      {
        // The worker entry inside workerd, with the bindings of wrangler.toml (local KV, Durable
        // Objects, Cache API). The dataset arrives as the Data module wrangler.toml declares, so
        // no test sends it through Vite's module runner (whose messages are capped near 5 MB).
        extends: true,
        plugins: [
          cloudflareTest({
            main: './src/worker.ts',
            wrangler: { configPath: './wrangler.toml' },
            remoteBindings: false,
            miniflare: {
              bindings: {
                // As in production, where it is a secret (`wrangler secret put`), not a [vars] entry.
                TOKEN_SIGNING_SECRET: 'workers-test-signing-secret',
                // High enough that suites walking thousands of pages in a minute are not throttled
                // (as in the Node harness); test/workers/rate-limit.test.ts sets its own.
                RATE_LIMIT_PER_MINUTE: '1000000',
              },
            },
          }),
        ],
        test: {
          name: 'workers',
          include: ['test/workers/**/*.test.ts'],
          setupFiles: ['test/workers/setup.ts'],
          globalSetup: ['test/support/compiled-data-setup.ts', 'test/support/workers-global-setup.ts'],
        },
      },
    ],
  },
});
