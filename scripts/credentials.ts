/**
 * Creates, lists and revokes credentials (docs/reference/operations.md): `npm run ops:credentials -- --help`.
 * A new secret is printed once, alone on its line on standard output (`npm run --silent` keeps
 * npm's banner off it); only its SHA-256 digest is written, into the credential file (atomically)
 * or into a file for `wrangler kv bulk put`. Human messages go to standard error.
 * Exit status: 0 done, 2 a bad argument or file (one line saying which), 1 anything else.
 */
import { createHash, randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { USAGE, parseArgs, type Command } from './credentials/args';
import type { CredentialDocument } from '../src/services/credentials/credential-store';
import { DIGEST_SHOWN, UsageError, addCredential, describeAccess, listCredentials, normalise, revokeCredential } from './credentials/document';
import { fromCommandLine, readJsonIfPresent, writeFileAtomic } from './credentials/files';
import { kvBulkJson } from './credentials/kv-bulk';
import { kvRevokeCommands, secretsWithoutFile } from './credentials/kv-commands';

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
    for (const row of rows) out(`${row.kind.padEnd(8)}${row.id.padEnd(24)}${row.digest.padEnd(14)}${describeAccess(row)}\n`);
    return;
  }
  if (command.action === 'revoke') {
    const path = credentialFile(command, !command.kv);
    const named = `${command.kind}${command.id === undefined ? '' : ` ${command.id}`}`;
    if (!path) {
      // Workers only: nothing to edit, only KV entries to remove.
      for (const line of kvRevokeCommands(secretsWithoutFile(command.kind, command.id, command.digest), undefined, command.env)) out(`${line}\n`);
      err(`run the command above to revoke ${named} in KV; it takes effect within about 90 s (docs/workers.md)`);
      return;
    }
    const { doc, removed } = revokeCredential(load(path, false), command);
    save(path, doc);
    const which = removed.map((s) => s.digest.slice(0, DIGEST_SHOWN)).join(', ');
    err(
      `revoked ${removed.length === 1 ? 'the secret' : `${removed.length} secrets`} ${which} of ${removed[0]!.kind} ${removed[0]!.id} in ${path}; a running gateway applies it within a second`,
    );
    if (listCredentials(doc).length === 0)
      err(`warning: ${path} now holds no credentials: a running gateway refuses every credential, and a new one does not start`);
    if (command.kv) {
      for (const line of kvRevokeCommands(removed, doc, command.env)) out(`${line}\n`);
      err('run the commands above to revoke it in KV too; it takes effect within about 90 s (docs/workers.md)');
    }
    return;
  }
  const path = credentialFile(command, command.kv === undefined);
  const secret = randomBytes(32).toString('base64url');
  const entry = { ...command, digest: createHash('sha256').update(secret).digest('hex') };
  const addSecret = command.addSecret === true;
  // A client is one KV entry holding all its secrets: its second one needs the first, from the file.
  if (addSecret && !path) throw new UsageError('--add-secret needs the credential file (--file or CREDENTIALS_FILE), which holds the first secret');
  // Everything is checked (the duplicate too) before anything is written or the secret is shown.
  const doc = path ? addCredential(load(path, true), entry, { addSecret }) : undefined;
  const kv = command.kv ? kvBulkJson(doc ? sameId(doc, entry) : addCredential({}, entry)) : undefined;
  if (path && doc) save(path, doc);
  if (command.kv && kv) writeFileAtomic(fromCommandLine(command.kv), kv);
  out(`${secret}\n`);
  const where = [path, command.kv && `${command.kv} (for wrangler kv bulk put)`].filter(Boolean).join(' and ');
  const name = command.kind === 'token' ? `personal token of member ${command.id}` : `${command.kind} ${command.id}`;
  const access = describeAccess(listCredentials(doc ?? addCredential({}, entry)).find((row) => row.kind === command.kind && row.id === command.id)!);
  err(`${addSecret ? 'added a second secret to' : 'created'} ${name} (${access}) in ${where}; the secret above is shown only once`);
}

/** The entries of one kind and id: what KV needs to hold that credential (a client's secrets are one entry). */
function sameId(doc: Required<CredentialDocument>, entry: { kind: string; id: string }): CredentialDocument {
  if (entry.kind === 'project') return { projects: doc.projects.filter((p) => p.id === entry.id) };
  if (entry.kind === 'client') return { clients: doc.clients.filter((c) => c.id === entry.id) };
  return { personal_tokens: doc.personal_tokens.filter((t) => t.member === entry.id) };
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

// Started as a program (`npm run ops:credentials`), not imported.
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  // A reader that stopped early (`list | head -1`) has what it wanted: no stack for that.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
  process.exitCode = main(process.argv.slice(2));
}
