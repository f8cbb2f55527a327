import { kvEntries } from '../../src/services/credentials/kv-credential-store';

/**
 * A credential document as the JSON file `wrangler kv bulk put` reads: `[{key, value}, ...]`, in
 * the key layout of the Workers credential store. Shared by `ops:kv-credentials` and `ops:credentials --kv`.
 */
export function kvBulkJson(doc: unknown): string {
  return `${JSON.stringify(kvEntries(doc), null, 2)}\n`;
}
