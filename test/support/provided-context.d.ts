/**
 * What test/support/workers-global-setup.ts provides to the workerd tests, dataset-sample-setup.ts
 * and vitest.mutation.config.ts to the mutation run's, and Stryker's vitest runner to a run under it
 * (`inject`).
 */
import 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A canonical v2 backend on 127.0.0.1, for upstream-mode tests. */
    upstreamUrl: string;
    /** The same backend behind a proxy that records every request's headers (`GET /__seen` lists them). */
    recordingUpstreamUrl: string;
    /** A legacy v1 backend (`LEGACY_V1_URL`), and one whose species details differ (`rank` lowercase). */
    legacyUrl: string;
    differingLegacyUrl: string;
    /** The fixture's sample (dataset-sample.ts) as JSON; absent where no global setup chose it. */
    datasetSample: string | undefined;
    /** Set by Stryker's vitest runner: its first test run, or a mutant's; absent outside Stryker. */
    mode?: 'dry-run' | 'mutant';
    /** Where mutation-time-limits.ts keeps each test file's first-run times, and Stryker's `timeoutMS` (stryker.config.json). */
    mutationTimeLimits?: { dir: string; timeoutMS: number };
  }
}
