/**
 * The memory budget of the Node gateway serving the bundled dataset, from the caps the caches
 * themselves declare (the README's table lists the same): what `npm run bench:memory` holds the
 * gateway to after a full collection, and what the start flags' `--max-old-space-size` leaves room for.
 */
import { LOG_QUEUE_MAX_BYTES } from '../src/node/log';
import { KNOWN_GOOD_BYTES } from '../src/policies/auth-failures';
import { KNOWN_HOST_BYTES } from '../src/policies/host';
import { PAGE_CACHE_BYTES, SEEN_KEY_BYTES } from '../src/routes/page-cache';
import { DETAIL_CACHE_BYTES, REWRITTEN_BYTES } from '../src/routes/resources';
import { RESULT_CACHE_BYTES } from '../src/services/bundled/result-cache';
import { DEFAULT_PIECE_BYTES } from '../src/services/bundled/compiled/piece-cache';
import { RATE_LIMIT_BYTES } from '../src/services/rate-limit/memory-rate-limiter';
import { USAGE_BYTES } from '../src/migration/plan/usage-store';

const MiB = 2 ** 20;

/** Each cap of a bundled-mode Node gateway, in bytes (v1 is the one version that rewrites records). */
export const CACHE_CAPS: Record<string, number> = {
  'search and sort results': RESULT_CACHE_BYTES,
  'dataset pieces': DEFAULT_PIECE_BYTES,
  'rendered pages': PAGE_CACHE_BYTES,
  'rendered details': DETAIL_CACHE_BYTES,
  'page and detail keys seen once': 2 * SEEN_KEY_BYTES,
  'v1 records rewritten': REWRITTEN_BYTES,
  'rate-limit and failed-authentication buckets': RATE_LIMIT_BYTES,
  'secrets that authenticated lately (API credentials; token-endpoint clients)': 2 * KNOWN_GOOD_BYTES,
  'host verdicts': KNOWN_HOST_BYTES,
  'log lines waiting for a slow reader': LOG_QUEUE_MAX_BYTES,
  "clients' usage, for their migration plans": USAGE_BYTES,
};

/**
 * What the gateway keeps besides its caches: its code, the dataset's header and the orders, ranks
 * and indexes it reads once and keeps for the life of the process (src/services/bundled/compiled/
 * resource.ts). Measured after a full collection at the end of `npm run bench:memory` with the
 * caches emptied of what they count, and rounded up.
 */
export const DATASET_WORKING_SET_BYTES = 40 * MiB;
