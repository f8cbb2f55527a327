/**
 * Turns a CREDENTIALS_FILE document into the input of `wrangler kv bulk put`, so the Workers
 * entry's KV namespace holds the same credentials as a Node deployment (docs/workers.md).
 *
 *   npx tsx scripts/kv-credentials.ts credentials.json > kv-credentials.json
 *   npx wrangler kv bulk put kv-credentials.json --binding CREDENTIALS --remote
 *
 * The document holds only SHA-256 digests, so the output holds no plaintext secret either.
 */
import { readFileSync } from 'node:fs';
import { kvEntries } from '../src/services/credentials/kv-credential-store';

const file = process.argv[2];
if (!file) {
  console.error('usage: npx tsx scripts/kv-credentials.ts <credentials.json>');
  process.exit(2);
}
try {
  process.stdout.write(`${JSON.stringify(kvEntries(JSON.parse(readFileSync(file, 'utf8'))), null, 2)}\n`);
} catch (err) {
  console.error(`${file}: ${(err as Error).message}`);
  process.exit(1);
}
