/** The test suite's legacy v1 backend as a process of its own, for `bench/compare-latency.ts`. */
import { legacyV1 } from '../test/support/legacy-v1';

const legacy = await legacyV1({ memo: true });
console.log(JSON.stringify({ message: 'legacy listening', url: legacy.url }));
