/**
 * What test/support/workers-global-setup.ts provides to the workerd tests, and
 * dataset-sample-setup.ts to the mutation run's (`inject`).
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
  }
}
