/**
 * Turns a CREDENTIALS_FILE document into the input of `wrangler kv bulk put`, so the Workers
 * entry's KV namespace holds the same credentials as a Node deployment (docs/workers.md).
 *
 *   npm run ops:kv-credentials -- credentials.json --out kv-credentials.json
 *   npx wrangler kv bulk put kv-credentials.json --binding CREDENTIALS --remote
 *
 * Without `--out` the JSON goes to standard output (`npm run --silent ...` keeps npm's own
 * banner out of it). `--demo` instead of a file gives the bundled demo credentials
 * (`npm run seed:worker` puts them in the local KV namespace of `npm run dev:worker`).
 *
 * The document holds only SHA-256 digests, so the output holds no plaintext secret either.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { DEMO_CREDENTIALS } from '../src/services/credentials/demo-credentials';
import { fromCommandLine, writeFileAtomic } from './credentials/files';
import { kvBulkJson } from './credentials/kv-bulk';

const USAGE = `usage: npm run ops:kv-credentials -- <credentials.json | --demo> [--out FILE]
Writes the credential file's entries (digests only) as input for \`wrangler kv bulk put\`:
to FILE with --out, else to standard output. --demo: the bundled demo credentials.`;

export function main(argv: readonly string[]): number {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.error(USAGE);
    return 0;
  }
  const args = [...argv];
  const at = args.indexOf('--out');
  const out = at >= 0 ? args.splice(at, 2)[1] : undefined;
  const [file, ...rest] = args;
  // An option it does not know is a mistake, never a file name.
  const unknown = file !== '--demo' && file?.startsWith('-');
  if (!file || unknown || rest.length > 0 || (at >= 0 && !out)) {
    console.error(USAGE);
    return 2;
  }
  let text: string;
  try {
    text = kvBulkJson(file === '--demo' ? DEMO_CREDENTIALS : JSON.parse(readFileSync(fromCommandLine(file), 'utf8')));
  } catch (err) {
    console.error(`${file}: ${(err as Error).message}`);
    return 1;
  }
  if (out === undefined) process.stdout.write(text);
  else {
    writeFileAtomic(fromCommandLine(out), text);
    console.error(`wrote ${text.split('"key"').length - 1} KV entries to ${out}`);
  }
  return 0;
}

// Started as a program, not imported.
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  process.exitCode = main(process.argv.slice(2));
}
