import type { ResourceName } from '../record-source';
import type { MaybePromise } from '../../core/maybe-promise';
import { RESOURCE_NAMES } from '../../core/resources';

/** What a credential may reach. docs/reference/access.md. */
export interface Access {
  resources: readonly ResourceName[];
  preview: boolean;
}

/** Who is calling: a project (API key), a member (personal token) or an OAuth client. */
export interface Principal {
  kind: 'project' | 'member' | 'client';
  /** Project id, member id or client id: the rate-limit bucket and the log's subject. */
  id: string;
  access: Access;
}

export interface OAuthClient {
  principal: Principal;
  /** One secret, or two while it is rotated (docs/reference/operations.md); all grant the same access. */
  secretDigests: readonly string[];
}

/** An answer at once (a store in memory), or once a remote store has answered (Workers KV). */
export type Looked<T> = MaybePromise<T | undefined>;

/** Looks credentials up by the SHA-256 hex digest of their secret; plaintext is never stored. */
export interface CredentialStore {
  apiKey(digest: string): Looked<Principal>;
  personalToken(digest: string): Looked<Principal>;
  client(clientId: string): Looked<OAuthClient>;
  /**
   * The client behind one of its access tokens, while it still holds the secret the token was
   * issued to (`credential`, see `credentialIdOf`): a revoked client or secret ends its tokens too.
   */
  tokenClient(clientId: string, credential: string | undefined): Looked<Principal>;
}

/** What both grant: a token reaches no further than its claims, nor than its client's access now. */
export function narrowAccess(a: Access, b: Access): Access {
  return { resources: a.resources.filter((r) => b.resources.includes(r)), preview: a.preview && b.preview };
}

/**
 * Which of a client's secrets a token was issued to: the first 16 hex digits of the secret's
 * digest (64 bits, enough to tell two secrets apart, too few to stand for the digest).
 */
export function credentialIdOf(secretDigest: string): string {
  return secretDigest.slice(0, 16);
}

/**
 * The client's principal when it holds the secret named by `credential`. A token issued before
 * tokens named their secret carries none: it stands while the client exists, and expires within
 * the token lifetime anyway.
 */
export function holderOf(client: OAuthClient | undefined, credential: string | undefined): Principal | undefined {
  if (!client) return undefined;
  if (credential === undefined || client.secretDigests.some((digest) => credentialIdOf(digest) === credential)) return client.principal;
  return undefined;
}

/** The JSON document of `CREDENTIALS_FILE` (and of the demo store). */
export interface CredentialDocument {
  projects?: Array<{ id: string; key_sha256: string } & AccessJson>;
  clients?: Array<{ id: string; secret_sha256: string } & AccessJson>;
  personal_tokens?: Array<{ member: string; token_sha256: string } & AccessJson>;
}

interface AccessJson {
  /** Resource families, or "*" for all. */
  resources: ResourceName[] | '*';
  preview?: boolean;
  /** Who to tell about this credential's migration (a mail address, a team): read by the report's plans only. */
  contact?: string;
}

export class MemoryCredentialStore implements CredentialStore {
  private readonly keys = new Map<string, Principal>();
  private readonly tokens = new Map<string, Principal>();
  private readonly clients = new Map<string, OAuthClient>();
  private readonly clientSecrets: number;

  constructor(doc: CredentialDocument) {
    for (const p of doc.projects ?? []) this.keys.set(p.key_sha256, { kind: 'project', id: p.id, access: access(p) });
    for (const t of doc.personal_tokens ?? []) this.tokens.set(t.token_sha256, { kind: 'member', id: t.member, access: access(t) });
    // Two entries of one client id are its two secrets during a rotation.
    for (const c of doc.clients ?? []) {
      const held = this.clients.get(c.id);
      const secretDigests = [...(held?.secretDigests ?? []), c.secret_sha256];
      this.clients.set(c.id, { principal: held?.principal ?? { kind: 'client', id: c.id, access: access(c) }, secretDigests });
    }
    this.clientSecrets = doc.clients?.length ?? 0;
  }

  /** How many credentials (secrets) of each kind the store holds, for the start-up line. */
  counts(): { projects: number; clients: number; personal_tokens: number } {
    return { projects: this.keys.size, clients: this.clientSecrets, personal_tokens: this.tokens.size };
  }

  apiKey(digest: string): Principal | undefined {
    return this.keys.get(digest);
  }
  personalToken(digest: string): Principal | undefined {
    return this.tokens.get(digest);
  }
  client(clientId: string): OAuthClient | undefined {
    return this.clients.get(clientId);
  }
  tokenClient(clientId: string, credential: string | undefined): Principal | undefined {
    return holderOf(this.clients.get(clientId), credential);
  }
}

function access(entry: AccessJson): Access {
  return { resources: entry.resources === '*' ? RESOURCE_NAMES : entry.resources, preview: entry.preview === true };
}

/**
 * Validates a credential document, naming the first bad entry. A document with no credential at
 * all is refused (a gateway on it would refuse everyone) unless `allowEmpty`: an editor's new
 * file, or one whose last credential was revoked.
 */
export function parseCredentialDocument(json: unknown, { allowEmpty = false } = {}): Required<CredentialDocument> {
  const fail = (where: string): never => {
    throw new Error(`credential document: ${where}`);
  };
  if (typeof json !== 'object' || json === null || Array.isArray(json)) fail('must be a JSON object');
  const doc = json as Record<string, unknown>;
  // A misspelt list (`"project": [...]`) would otherwise start a gateway that refuses everyone.
  const unknown = Object.keys(doc).find((key) => !(DOCUMENT_KEYS as readonly string[]).includes(key));
  if (unknown !== undefined) fail(`unknown key ${JSON.stringify(unknown)}: the lists are ${DOCUMENT_KEYS.join(', ')}`);
  const digest = (v: unknown, where: string) => (typeof v === 'string' && /^[0-9a-f]{64}$/.test(v) ? v : fail(`${where} must be a SHA-256 hex digest`));
  const text = (v: unknown, where: string) => (typeof v === 'string' && v.length > 0 ? v : fail(`${where} must be a non-empty string`));
  const accessOf = (e: Record<string, unknown>, where: string): AccessJson => {
    const r = e.resources;
    const ok = r === '*' || (Array.isArray(r) && r.every((x) => (RESOURCE_NAMES as unknown[]).includes(x)));
    if (!ok) fail(`${where}.resources must be "*" or a list of ${RESOURCE_NAMES.join(', ')}`);
    if (e.preview !== undefined && typeof e.preview !== 'boolean') fail(`${where}.preview must be a boolean`);
    return { resources: r as AccessJson['resources'], preview: e.preview === true };
  };
  const list = (name: string) => {
    const v = doc[name];
    if (v === undefined) return [];
    if (!Array.isArray(v)) fail(`${name} must be a list`);
    return (v as unknown[]).map((e, i) => {
      if (typeof e !== 'object' || e === null) fail(`${name}[${i}] must be an object`);
      return [e as Record<string, unknown>, `${name}[${i}]`] as const;
    });
  };
  const parsed: Required<CredentialDocument> = {
    projects: list('projects').map(([e, w]) => ({ id: text(e.id, `${w}.id`), key_sha256: digest(e.key_sha256, `${w}.key_sha256`), ...accessOf(e, w) })),
    clients: list('clients').map(([e, w]) => ({ id: text(e.id, `${w}.id`), secret_sha256: digest(e.secret_sha256, `${w}.secret_sha256`), ...accessOf(e, w) })),
    personal_tokens: list('personal_tokens').map(([e, w]) => ({
      member: text(e.member, `${w}.member`),
      token_sha256: digest(e.token_sha256, `${w}.token_sha256`),
      ...accessOf(e, w),
    })),
  };
  if (!allowEmpty && parsed.projects.length + parsed.clients.length + parsed.personal_tokens.length === 0) {
    fail(`holds no credentials: add an entry to ${DOCUMENT_KEYS.join(', ')}`);
  }
  // Two entries with one digest (or one client id): the store would keep the last, silently.
  const seen = new Map<string, string>();
  const once = (key: string, where: string, what: string) => {
    const first = seen.get(key);
    if (first !== undefined) fail(`${where} has the same ${what} as ${first}: remove one of them`);
    seen.set(key, where);
  };
  parsed.projects.forEach((p, i) => {
    once(`digest:${p.key_sha256}`, `projects[${i}] (${JSON.stringify(p.id)})`, 'digest');
  });
  parsed.personal_tokens.forEach((t, i) => {
    once(`digest:${t.token_sha256}`, `personal_tokens[${i}] (${JSON.stringify(t.member)})`, 'digest');
  });
  parsed.clients.forEach((c, i) => {
    once(`digest:${c.secret_sha256}`, `clients[${i}] (${JSON.stringify(c.id)})`, 'digest');
  });
  // A client's second secret (rotation) is a second entry with its id: its tokens carry one access.
  const firstOfClient = new Map<string, [AccessJson, string]>();
  parsed.clients.forEach((c, i) => {
    const where = `clients[${i}] (${JSON.stringify(c.id)})`;
    const first = firstOfClient.get(c.id);
    if (!first) firstOfClient.set(c.id, [c, where]);
    else if (!sameAccess(first[0], c)) fail(`${where} grants other access than ${first[1]}: the secrets of one client grant the same access`);
  });
  return parsed;
}

const DOCUMENT_KEYS = ['projects', 'clients', 'personal_tokens'] as const;

function sameAccess(a: AccessJson, b: AccessJson): boolean {
  const names = (r: AccessJson['resources']) => (r === '*' ? RESOURCE_NAMES : [...r]).slice().sort().join(',');
  return names(a.resources) === names(b.resources) && (a.preview === true) === (b.preview === true);
}
