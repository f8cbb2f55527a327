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
  /** The start of the secret's digest (`DIGEST_SHOWN` hex digits): what `revoke --digest` takes. */
  digest: string;
}

/** A secret as stored: its kind, id and whole digest. */
export interface StoredSecret {
  kind: CredentialKind;
  id: string;
  digest: string;
}

/** Hex digits of a digest `list` shows: enough to tell secrets apart, short enough to type. */
export const DIGEST_SHOWN = 12;

/** Secrets one id holds at most: the one in use and its successor while callers move. */
export const MAX_SECRETS = 2;

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

function secrets(doc: Required<CredentialDocument>): Array<StoredSecret & Pick<CredentialRow, 'resources' | 'preview'>> {
  return [
    ...doc.projects.map((p) => ({ kind: 'project' as const, id: p.id, digest: p.key_sha256, resources: p.resources, preview: p.preview === true })),
    ...doc.clients.map((c) => ({ kind: 'client' as const, id: c.id, digest: c.secret_sha256, resources: c.resources, preview: c.preview === true })),
    ...doc.personal_tokens.map((t) => ({ kind: 'token' as const, id: t.member, digest: t.token_sha256, resources: t.resources, preview: t.preview === true })),
  ];
}

function rows(doc: Required<CredentialDocument>): CredentialRow[] {
  return secrets(doc).map((secret) => ({ ...secret, digest: secret.digest.slice(0, DIGEST_SHOWN) }));
}

/**
 * The document with `credential` added. An id its kind already holds is refused unless
 * `addSecret` (rotation): then the id must exist, holds at most `MAX_SECRETS`, and the new secret
 * gets the access of the one already there.
 */
export function addCredential(json: unknown, credential: NewCredential, { addSecret = false } = {}): Required<CredentialDocument> {
  const doc = normalise(json);
  checkId(credential.kind, credential.id);
  const held = secrets(doc).filter((row) => row.kind === credential.kind && row.id === credential.id);
  const name = `${credential.kind} ${credential.id}`;
  if (!addSecret && held.length > 0) {
    throw new UsageError(`${name} already exists: give it a second secret with --add-secret (rotation), or choose another id`);
  }
  if (addSecret && held.length === 0) throw new UsageError(`no ${name} to add a secret to: create it without --add-secret`);
  if (held.length >= MAX_SECRETS) {
    throw new UsageError(`${name} already holds ${MAX_SECRETS} secrets: revoke one first (revoke ${name} --digest PREFIX; list shows them)`);
  }
  const { id, digest } = credential;
  const { resources, preview } = held[0] ?? credential;
  if (credential.kind === 'project') return normalise({ ...doc, projects: [...doc.projects, { id, key_sha256: digest, resources, preview }] });
  if (credential.kind === 'client') return normalise({ ...doc, clients: [...doc.clients, { id, secret_sha256: digest, resources, preview }] });
  return normalise({ ...doc, personal_tokens: [...doc.personal_tokens, { member: id, token_sha256: digest, resources, preview }] });
}

/** Which secrets `revoke` removes: every one of an id, or the one whose digest starts with `digest`. */
export interface RevokeTarget {
  kind: CredentialKind;
  id?: string;
  digest?: string;
}

/**
 * The document without the secrets `target` names, and those secrets. None there is refused, as
 * is a digest prefix that names more than one secret.
 */
export function revokeCredential(json: unknown, target: RevokeTarget): { doc: Required<CredentialDocument>; removed: StoredSecret[] } {
  const doc = normalise(json);
  const { kind, id, digest } = target;
  const hit = (entryId: string, entryDigest: string) => (id === undefined || entryId === id) && (digest === undefined || entryDigest.startsWith(digest));
  const removed = secrets(doc)
    .filter((s) => s.kind === kind && hit(s.id, s.digest))
    .map(({ kind, id, digest }) => ({ kind, id, digest }));
  const what = `${kind}${id === undefined ? '' : ` ${JSON.stringify(id)}`}${digest === undefined ? '' : ` with a digest starting ${digest}`}`;
  if (removed.length === 0) throw new UsageError(`no ${what} in the credential file`);
  if (digest !== undefined && removed.length > 1) {
    throw new UsageError(`${digest} starts the digests of ${removed.length} secrets (${removed.map((s) => `${s.kind} ${s.id}`).join(', ')}): give more digits`);
  }
  const gone = (entryId: string, entryDigest: string, entryKind: CredentialKind) => entryKind === kind && hit(entryId, entryDigest);
  const next = {
    projects: doc.projects.filter((p) => !gone(p.id, p.key_sha256, 'project')),
    clients: doc.clients.filter((c) => !gone(c.id, c.secret_sha256, 'client')),
    personal_tokens: doc.personal_tokens.filter((t) => !gone(t.member, t.token_sha256, 'token')),
  };
  return { doc: next, removed };
}

/** How a credential's access reads in `list` and in messages. */
export function describeAccess(row: Pick<CredentialRow, 'resources' | 'preview'>): string {
  return `${row.resources === '*' ? 'all resources' : row.resources.join(', ')}${row.preview ? ', v3 preview' : ''}`;
}
