import type { ResourceName } from '../../src/services/record-source';
import { CREDENTIAL_KINDS, UsageError, checkId, parseResources, type CredentialKind } from './document';

export const USAGE = `usage:
  npm run credentials -- create project <id> [--resources species,genus] [--file FILE] [--kv FILE]
  npm run credentials -- create client <id> [--resources ...] [--preview] [--file FILE] [--kv FILE]
  npm run credentials -- create token <member> [--resources ...] [--preview] [--file FILE] [--kv FILE]
  npm run credentials -- list [--file FILE]
  npm run credentials -- revoke project|client|token <id> [--file FILE]
The credential file is --file, else CREDENTIALS_FILE. --kv FILE writes the new credential as
input for \`wrangler kv bulk put\` (then the credential file is written only when --file is given).`;

export type Command =
  | { action: 'create'; kind: CredentialKind; id: string; resources: ResourceName[] | '*'; preview: boolean; file?: string; kv?: string }
  | { action: 'list'; file?: string }
  | { action: 'revoke'; kind: CredentialKind; id: string; file?: string };

/** Reads the command line (after `--`); any mistake is one UsageError line. */
export function parseArgs(argv: readonly string[]): Command {
  const positional: string[] = [];
  const options = new Map<string, string | true>();
  const takesValue = new Set(['--file', '--kv', '--resources']);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const [name, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    if (!takesValue.has(name) && name !== '--preview' && name !== '--help') throw new UsageError(`unknown option ${name}`);
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
      // An API key can never reach v3 (Bearer only), so a preview project would be a promise not kept.
      allow(`create ${kind}`, ['--resources', '--file', '--kv', ...(kind === 'project' ? [] : ['--preview'])]);
      return {
        action,
        kind,
        id: checkId(kind, id),
        resources: parseResources(text('--resources') ?? '*'),
        preview: options.has('--preview'),
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
      if (id === undefined) throw new UsageError(`revoke ${kind} needs an id`);
      exactly(3, `revoke ${kind} ${id}`);
      allow('revoke', ['--file']);
      return { action, kind, id: checkId(kind, id), ...(text('--file') ? { file: text('--file') } : {}) };
    }
    case undefined:
      throw new UsageError('no command: use create, list or revoke');
    default:
      throw new UsageError(`unknown command ${JSON.stringify(action)}: use create, list or revoke`);
  }
}
