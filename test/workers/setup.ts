import { env } from 'cloudflare:workers';
import { beforeAll } from 'vitest';
import { DEMO_CREDENTIALS } from '../../src/services/credentials/demo-credentials';
import { kvEntries } from '../../src/services/credentials/kv-credential-store';

// Storage is fresh for each test file: give the worker's KV namespace the demo credentials, in the
// layout `npm run ops:kv-credentials` produces, so suites authenticate through KV as in production.
beforeAll(async () => {
  for (const { key, value } of kvEntries(DEMO_CREDENTIALS)) await env.CREDENTIALS!.put(key, value);
});
