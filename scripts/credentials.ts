/**
 * Creates, lists and revokes credentials (CONTRACT section 17): `npm run credentials -- --help`.
 * A new secret is printed once, alone on its line on standard output (`npm run --silent` keeps
 * npm's banner off it); only its SHA-256 digest is written, into the credential file (atomically)
 * or into a file for `wrangler kv bulk put`. Human messages go to standard error.
 * Exit status: 0 done, 2 a bad argument or file (one line saying which), 1 anything else.
 */
import { createHash, randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { USAGE, parseArgs, type Command } from './credentials/args';
import { UsageError, addCredential, describeAccess, listCredentials, normalise, revokeCredential } from './credentials/document';
import { fromCommandLine, readJsonIfPresent, writeFileAtomic } from './credentials/files';
import { kvBulkJson } from './credentials/kv-bulk';

/** The credential file: `--file` (relative to the caller's directory), else CREDENTIALS_FILE as the gateway reads it. */
function credentialFile(command: Command, required: boolean): string | undefined {
  if (command.file) return fromCommandLine(command.file);
  const env = process.env.CREDENTIALS_FILE?.trim();
  if (env) return env;
  if (required) throw new UsageError('no credential file: give --file FILE or set CREDENTIALS_FILE');
  return undefined;
}

/** The document in `path`; a missing file is an empty document only where `create` may start one. */
function load(path: string, mayBeMissing: boolean): unknown {
  let json: unknown;
  try {
    json = readJsonIfPresent(path);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (json === undefined && !mayBeMissing) throw new UsageError(`${path}: no such credential file`);
  try {
    return normalise(json ?? {});
  } catch (err) {
    throw new UsageError(`${path}: ${(err as Error).message}`);
  }
}

const save = (path: string, doc: unknown) => writeFileAtomic(path, `${JSON.stringify(doc, null, 2)}\n`);

export function run(argv: readonly string[], out: (text: string) => void, err: (text: string) => void): void {
  const command = parseArgs(argv);
  if (command.action === 'list') {
    const path = credentialFile(command, true)!;
    const rows = listCredentials(load(path, false));
    if (rows.length === 0) err(`${path} holds no credentials`);
    for (const row of rows) out(`${row.kind.padEnd(8)}${row.id.padEnd(24)}${describeAccess(row)}\n`);
    return;
  }
  if (command.action === 'revoke') {
    const path = credentialFile(command, true)!;
    const { doc, removed } = revokeCredential(load(path, false), command.kind, command.id);
    save(path, doc);
    err(`revoked ${command.kind} ${command.id}${removed > 1 ? ` (${removed} entries)` : ''} in ${path}; restart the gateway to apply it`);
    if (listCredentials(doc).length === 0) err(`warning: ${path} now holds no credentials, and a gateway does not start on such a file`);
    return;
  }
  const path = credentialFile(command, command.kv === undefined);
  const secret = randomBytes(32).toString('base64url');
  const entry = { ...command, digest: createHash('sha256').update(secret).digest('hex') };
  // Everything is checked (the duplicate too) before anything is written or the secret is shown.
  const doc = path ? addCredential(load(path, true), entry) : undefined;
  const kv = command.kv ? kvBulkJson(addCredential({}, entry)) : undefined;
  if (path && doc) save(path, doc);
  if (command.kv && kv) writeFileAtomic(fromCommandLine(command.kv), kv);
  out(`${secret}\n`);
  const where = [path, command.kv && `${command.kv} (for wrangler kv bulk put)`].filter(Boolean).join(' and ');
  const name = command.kind === 'token' ? `personal token of member ${command.id}` : `${command.kind} ${command.id}`;
  err(`created ${name} (${describeAccess(command)}) in ${where}; the secret above is shown only once`);
}

export function main(argv: readonly string[]): number {
  try {
    run(
      argv,
      (t) => process.stdout.write(t),
      (t) => process.stderr.write(`${t}\n`),
    );
    return 0;
  } catch (error) {
    if (!(error instanceof UsageError)) {
      console.error(`credentials: ${(error as Error).message}`);
      return 1;
    }
    console.error(error.message === 'help' ? USAGE : `credentials: ${error.message} (see --help)`);
    return error.message === 'help' ? 0 : 2;
  }
}

// Started as a program (`npm run credentials`), not imported.
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  process.exitCode = main(process.argv.slice(2));
}
