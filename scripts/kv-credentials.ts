/**
 * Turns a CREDENTIALS_FILE document into the input of `wrangler kv bulk put`, so the Workers
 * entry's KV namespace holds the same credentials as a Node deployment (docs/workers.md).
 *
 *   npx tsx scripts/kv-credentials.ts credentials.json > kv-credentials.json
 *   npx wrangler kv bulk put kv-credentials.json --binding CREDENTIALS --remote
 *
 * `--demo` instead of a file gives the bundled demo credentials (`npm run seed:worker` puts them
 * in the local KV namespace of `npm run dev:worker`).
 *
 * The document holds only SHA-256 digests, so the output holds no plaintext secret either.
 */
import { readFileSync } from 'node:fs';
import { DEMO_CREDENTIALS } from '../src/services/credentials/demo-credentials';
import { kvEntries } from '../src/services/credentials/kv-credential-store';

const file = process.argv[2];
if (!file) {
  console.error('usage: npx tsx scripts/kv-credentials.ts <credentials.json | --demo>');
  process.exit(2);
}
try {
  const doc = file === '--demo' ? DEMO_CREDENTIALS : JSON.parse(readFileSync(file, 'utf8'));
  process.stdout.write(`${JSON.stringify(kvEntries(doc), null, 2)}\n`);
} catch (err) {
  console.error(`${file}: ${(err as Error).message}`);
  process.exit(1);
}
