import type { ResourceName } from '../record-source';
import { RESOURCE_NAMES } from '../../core/resources';

/** What a credential may reach. CONTRACT section 2. */
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
  secretDigest: string;
}

/** Looks credentials up by the SHA-256 hex digest of their secret; plaintext is never stored. */
/** An answer at once (a store in memory), or once a remote store has answered (Workers KV). */
export type Looked<T> = T | undefined | Promise<T | undefined>;

export interface CredentialStore {
  apiKey(digest: string): Looked<Principal>;
  personalToken(digest: string): Looked<Principal>;
  client(clientId: string): Looked<OAuthClient>;
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
}

export class MemoryCredentialStore implements CredentialStore {
  private readonly keys = new Map<string, Principal>();
  private readonly tokens = new Map<string, Principal>();
  private readonly clients = new Map<string, OAuthClient>();

  constructor(doc: CredentialDocument) {
    for (const p of doc.projects ?? []) this.keys.set(p.key_sha256, { kind: 'project', id: p.id, access: access(p) });
    for (const t of doc.personal_tokens ?? []) this.tokens.set(t.token_sha256, { kind: 'member', id: t.member, access: access(t) });
    for (const c of doc.clients ?? []) {
      this.clients.set(c.id, { principal: { kind: 'client', id: c.id, access: access(c) }, secretDigest: c.secret_sha256 });
    }
  }

  /** How many credentials of each kind the store holds, for the start-up line. */
  counts(): { projects: number; clients: number; personal_tokens: number } {
    return { projects: this.keys.size, clients: this.clients.size, personal_tokens: this.tokens.size };
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
  parsed.clients.forEach((c, i) => {
    once(`client:${c.id}`, `clients[${i}] (${JSON.stringify(c.id)})`, 'client id');
  });
  return parsed;
}

const DOCUMENT_KEYS = ['projects', 'clients', 'personal_tokens'] as const;
