/**
 * A legacy v1 backend to try the migration controls with (`npm run dev:legacy`), and the one
 * `bench/compare-latency.ts` measures against: the test suite's stand-in as a process of its own,
 * serving v1 over the bundled dataset on 127.0.0.1 (`PORT`, default 8790). It answers only the
 * gateway's own credential, which the start-up line prints as the `LEGACY_V1_AUTHORIZATION` to set.
 */
import { LEGACY_AUTHORIZATION, legacyV1 } from '../test/support/legacy-v1';

const port = Number(process.env.PORT ?? 8790);
const legacy = await legacyV1({ memo: true, port });
console.log(
  JSON.stringify({
    message: 'legacy listening',
    url: legacy.url,
    gateway: `LEGACY_V1_URL=${legacy.url} LEGACY_V1_AUTHORIZATION='${LEGACY_AUTHORIZATION}'`,
  }),
);
