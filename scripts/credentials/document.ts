/**
 * Editing a credential document (the JSON of CREDENTIALS_FILE): pure functions, so the CLI
 * (`scripts/credentials.ts`) only reads arguments and files. Every document that goes in or
 * comes out is validated by `parseCredentialDocument`, the same check the gateway runs.
 */
import type { ResourceName } from '../../src/services/record-source';
import { RESOURCE_NAMES } from '../../src/core/resources';
import { parseCredentialDocument, type CredentialDocument } from '../../src/services/credentials/credential-store';

/** The three kinds as the CLI names them: an API key of a project, an OAuth client, a member's personal token. */
export type CredentialKind = 'project' | 'client' | 'token';
export const CREDENTIAL_KINDS: readonly CredentialKind[] = ['project', 'client', 'token'];

export interface NewCredential {
  kind: CredentialKind;
  /** Project id, client id, or the member a personal token belongs to. */
  id: string;
  /** SHA-256 hex digest of the secret: the only trace of the secret the document keeps. */
  digest: string;
  resources: ResourceName[] | '*';
  preview: boolean;
}

export interface CredentialRow {
  kind: CredentialKind;
  id: string;
  resources: ResourceName[] | '*';
  preview: boolean;
}

/** A mistake of the operator's (bad argument, duplicate, unknown id): one line, exit status 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/**
 * Ids appear in log lines (`project:acme`), rate-limit buckets, KV keys (`client:<id>`) and, for
 * clients, HTTP Basic credentials, where a colon would split the id: letters, digits, `.`, `_`, `-`.
 */
const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function checkId(kind: CredentialKind, id: string): string {
  if (!ID.test(id)) throw new UsageError(`bad ${kind} id ${JSON.stringify(id)}: use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit`);
  return id;
}

/** `species,genus` or `*` (all families). */
export function parseResources(text: string): ResourceName[] | '*' {
  if (text.trim() === '*') return '*';
  const names = text.split(',').map((r) => r.trim());
  for (const name of names) {
    if (!(RESOURCE_NAMES as string[]).includes(name)) {
      throw new UsageError(`unknown resource ${JSON.stringify(name)} in --resources: use * or a comma-separated list of ${RESOURCE_NAMES.join(', ')}`);
    }
  }
  if (new Set(names).size !== names.length) throw new UsageError(`--resources names a resource twice: ${text}`);
  return names as ResourceName[];
}

/**
 * The document with every list present, validated. A document with no entry at all (a new file,
 * or one whose last credential was revoked) is the start of an edit, not an error here, though
 * the gateway refuses to start on it.
 */
export function normalise(json: unknown): Required<CredentialDocument> {
  return parseCredentialDocument(json, { allowEmpty: true });
}

export function listCredentials(json: unknown): CredentialRow[] {
  return rows(normalise(json));
}

function rows(doc: Required<CredentialDocument>): CredentialRow[] {
  return [
    ...doc.projects.map((p) => ({ kind: 'project' as const, id: p.id, resources: p.resources, preview: p.preview === true })),
    ...doc.clients.map((c) => ({ kind: 'client' as const, id: c.id, resources: c.resources, preview: c.preview === true })),
    ...doc.personal_tokens.map((t) => ({ kind: 'token' as const, id: t.member, resources: t.resources, preview: t.preview === true })),
  ];
}

/** The document with `credential` added; an id already held by that kind is refused. */
export function addCredential(json: unknown, credential: NewCredential): Required<CredentialDocument> {
  const doc = normalise(json);
  checkId(credential.kind, credential.id);
  if (rows(doc).some((row) => row.kind === credential.kind && row.id === credential.id)) {
    throw new UsageError(`${credential.kind} ${credential.id} already exists: revoke it first, or choose another id`);
  }
  const { id, digest, resources, preview } = credential;
  if (credential.kind === 'project') return { ...doc, projects: [...doc.projects, { id, key_sha256: digest, resources, preview }] };
  if (credential.kind === 'client') return { ...doc, clients: [...doc.clients, { id, secret_sha256: digest, resources, preview }] };
  return { ...doc, personal_tokens: [...doc.personal_tokens, { member: id, token_sha256: digest, resources, preview }] };
}

/** The document without the credentials of `kind` and `id`; none there is refused. */
export function revokeCredential(json: unknown, kind: CredentialKind, id: string): { doc: Required<CredentialDocument>; removed: number } {
  const doc = normalise(json);
  const next = {
    projects: kind === 'project' ? doc.projects.filter((p) => p.id !== id) : doc.projects,
    clients: kind === 'client' ? doc.clients.filter((c) => c.id !== id) : doc.clients,
    personal_tokens: kind === 'token' ? doc.personal_tokens.filter((t) => t.member !== id) : doc.personal_tokens,
  };
  const removed = rows(doc).length - rows(next).length;
  if (removed === 0) throw new UsageError(`no ${kind} ${JSON.stringify(id)} in the credential file`);
  return { doc: next, removed };
}

/** How a credential's access reads in `list` and in messages. */
export function describeAccess(row: Pick<CredentialRow, 'resources' | 'preview'>): string {
  return `${row.resources === '*' ? 'all resources' : row.resources.join(', ')}${row.preview ? ', v3 preview' : ''}`;
}
