import type { CredentialDocument } from '../../src/services/credentials/credential-store';
import { kvEntries } from '../../src/services/credentials/kv-credential-store';
import { UsageError, type StoredSecret } from './document';

/** How the Workers store keys each kind (src/services/credentials/kv-credential-store.ts). */
const KEY_PREFIX = { project: 'apikey', token: 'pat' } as const;

/**
 * The `wrangler kv key` commands that take revoked secrets out of the CREDENTIALS namespace: a
 * project key or personal token is one entry, deleted; a client is one entry holding all its
 * secrets, deleted with its last one and otherwise rewritten without the revoked one (`after`,
 * the credential document once revoked, holds what stays).
 */
export function kvRevokeCommands(removed: readonly StoredSecret[], after: Required<CredentialDocument> | undefined, env?: string): string[] {
  const target = `--binding CREDENTIALS${env ? ` --env ${env}` : ''} --remote`;
  const commands = removed
    .filter((s) => s.kind !== 'client')
    .map((s) => `npx wrangler kv key delete "${KEY_PREFIX[s.kind as 'project' | 'token']}:${s.digest}" ${target}`);
  for (const id of new Set(removed.filter((s) => s.kind === 'client').map((s) => s.id))) {
    const staying = after?.clients.filter((c) => c.id === id) ?? [];
    if (staying.length === 0) commands.push(`npx wrangler kv key delete "client:${id}" ${target}`);
    // Ids, digests and resource names hold no quote, so the value goes in single quotes as it is.
    else commands.push(`npx wrangler kv key put "client:${id}" '${kvEntries({ clients: staying })[0]!.value}' ${target}`);
  }
  return commands;
}

/**
 * The secrets a revoke names when there is no credential file (a Workers-only deployment): a
 * project key or personal token by its whole digest (KV is keyed by it), a client by its id.
 */
export function secretsWithoutFile(kind: StoredSecret['kind'], id: string | undefined, digest: string | undefined): StoredSecret[] {
  if (kind === 'client') {
    if (id === undefined || digest !== undefined)
      throw new UsageError('without a credential file, revoke client takes the client id alone (every secret of it)');
    return [{ kind, id, digest: '' }];
  }
  if (digest === undefined || digest.length !== 64) {
    throw new UsageError(`without a credential file, revoke ${kind} --kv needs the whole digest (--digest, 64 hex digits): KV is keyed by it`);
  }
  return [{ kind, id: id ?? '', digest }];
}
