import type { ResourceName } from '../../src/services/record-source';
import { CREDENTIAL_KINDS, UsageError, checkId, parseResources, type CredentialKind } from './document';

export const USAGE = `usage:
  npm run ops:credentials -- create project <id> [--resources species,genus] [--file FILE] [--kv FILE]
  npm run ops:credentials -- create client <id> [--resources ...] [--preview] [--file FILE] [--kv FILE]
  npm run ops:credentials -- create token <member> [--resources ...] [--preview] [--file FILE] [--kv FILE]
  npm run ops:credentials -- create project|client|token <id> --add-secret [--file FILE] [--kv FILE]
  npm run ops:credentials -- list [--file FILE]
  npm run ops:credentials -- revoke project|client|token <id> [--digest PREFIX] [--file FILE] [--kv [--env NAME]]
  npm run ops:credentials -- revoke project|client|token --digest PREFIX [--file FILE] [--kv [--env NAME]]
The credential file is --file, else CREDENTIALS_FILE; a running gateway reads it again when it
changes. --add-secret gives an existing id a second secret with the same access (rotation: move
callers to it, then revoke the old one); an id holds at most two. revoke removes every secret of
the id, or with --digest only the one whose SHA-256 digest starts with PREFIX (list shows them).
create --kv FILE writes the new credential as input for \`wrangler kv bulk put\` (then the credential
file is written only when --file is given); revoke --kv prints the \`wrangler kv key\` commands that
remove the revoked secrets from the CREDENTIALS namespace (--env NAME: of that environment).`;

export type Command =
  | {
      action: 'create';
      kind: CredentialKind;
      id: string;
      resources: ResourceName[] | '*';
      preview: boolean;
      addSecret?: true;
      file?: string;
      kv?: string;
    }
  | { action: 'list'; file?: string }
  | { action: 'revoke'; kind: CredentialKind; id?: string; digest?: string; file?: string; kv?: true; env?: string };

/** The shortest digest prefix `revoke --digest` takes: long enough not to name a secret by accident. */
const MIN_PREFIX = 8;

/** Reads the command line (after `--`); any mistake is one UsageError line. */
export function parseArgs(argv: readonly string[]): Command {
  const positional: string[] = [];
  const options = new Map<string, string | true>();
  // `revoke --kv` prints commands and names no file; `create --kv FILE` writes one.
  const revoking = argv.find((arg) => !arg.startsWith('--')) === 'revoke';
  const takesValue = new Set(['--file', '--resources', '--digest', '--env', ...(revoking ? [] : ['--kv'])]);
  const flags = new Set(['--preview', '--help', '--add-secret', ...(revoking ? ['--kv'] : [])]);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const [name, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    if (!takesValue.has(name) && !flags.has(name)) throw new UsageError(`unknown option ${name}`);
    if (options.has(name)) throw new UsageError(`${name} given twice`);
    if (!takesValue.has(name)) {
      if (inline !== undefined) throw new UsageError(`${name} takes no value`);
      options.set(name, true);
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined || value === '' || (inline === undefined && value.startsWith('--'))) throw new UsageError(`${name} needs a value`);
    options.set(name, value);
  }
  if (options.has('--help')) throw new UsageError('help');
  const text = (name: string) => options.get(name) as string | undefined;
  const allow = (action: string, names: string[]) => {
    for (const name of options.keys()) if (!names.includes(name)) throw new UsageError(`${name} does not apply to ${action}`);
  };
  const kindOf = (word: string | undefined, action: string): CredentialKind => {
    if (word === undefined) throw new UsageError(`${action} needs a kind: project, client or token`);
    if (!(CREDENTIAL_KINDS as string[]).includes(word)) throw new UsageError(`unknown kind ${JSON.stringify(word)}: use project, client or token`);
    return word as CredentialKind;
  };
  const exactly = (count: number, action: string) => {
    if (positional.length > count) throw new UsageError(`unexpected argument ${JSON.stringify(positional[count])} after ${action}`);
  };

  const [action, kindWord, id] = positional;
  switch (action) {
    case 'create': {
      const kind = kindOf(kindWord, 'create');
      if (id === undefined) throw new UsageError(`create ${kind} needs an id`);
      exactly(3, `create ${kind} ${id}`);
      const addSecret = options.has('--add-secret');
      // An API key can never reach v3 (Bearer only), so a preview project would be a promise not kept.
      // A second secret takes the access of the first: one id, one access.
      const access = addSecret ? [] : ['--resources', ...(kind === 'project' ? [] : ['--preview'])];
      allow(`create ${kind}${addSecret ? ' --add-secret' : ''}`, [...access, '--add-secret', '--file', '--kv']);
      return {
        action,
        kind,
        id: checkId(kind, id),
        resources: parseResources(text('--resources') ?? '*'),
        preview: options.has('--preview'),
        ...(addSecret ? { addSecret: true as const } : {}),
        ...(text('--file') ? { file: text('--file') } : {}),
        ...(text('--kv') ? { kv: text('--kv') } : {}),
      };
    }
    case 'list':
      exactly(1, 'list');
      allow('list', ['--file']);
      return { action, ...(text('--file') ? { file: text('--file') } : {}) };
    case 'revoke': {
      const kind = kindOf(kindWord, 'revoke');
      const digest = text('--digest')?.toLowerCase();
      if (id === undefined && digest === undefined) throw new UsageError(`revoke ${kind} needs an id, or --digest with the start of a secret's digest`);
      exactly(3, `revoke ${kind} ${id}`);
      allow('revoke', ['--file', '--digest', '--kv', ...(options.has('--kv') ? ['--env'] : [])]);
      if (digest !== undefined && !new RegExp(`^[0-9a-f]{${MIN_PREFIX},64}$`).test(digest)) {
        throw new UsageError(`--digest takes ${MIN_PREFIX} to 64 hex digits of a secret's SHA-256 digest (list shows them)`);
      }
      return {
        action,
        kind,
        ...(id !== undefined ? { id: checkId(kind, id) } : {}),
        ...(digest !== undefined ? { digest } : {}),
        ...(text('--file') ? { file: text('--file') } : {}),
        ...(options.has('--kv') ? { kv: true as const } : {}),
        ...(text('--env') ? { env: text('--env') } : {}),
      };
    }
    case undefined:
      throw new UsageError('no command: use create, list or revoke');
    default:
      throw new UsageError(`unknown command ${JSON.stringify(action)}: use create, list or revoke`);
  }
}
