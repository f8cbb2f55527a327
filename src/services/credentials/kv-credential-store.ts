import { ConfigError } from '../../config';
import type { CredentialDocument, CredentialStore, OAuthClient, Principal } from './credential-store';
import { holderOf, MemoryCredentialStore, parseCredentialDocument } from './credential-store';
import { DEMO_CREDENTIALS } from './demo-credentials';

/** The part of a key-value namespace the store reads (Workers KV: `get(key, { type: 'json', cacheTtl })`). */
export interface JsonKeyValue {
  get(key: string, options: { type: 'json'; cacheTtl: number }): Promise<unknown>;
}

/**
 * How long a location keeps what it read from KV's central store (KV's `cacheTtl`, at least 60 s
 * by its rules at the time of writing, 30 s now): each credential is read from afar at most once
 * per location in that time (docs/reference/operations.md). It is also KV's own default, so the bound on a
 * revocation stays what docs/workers.md states; a miss is kept as long, so a key created after a
 * location looked it up in vain works there within this time.
 */
export const KV_CACHE_TTL_SECONDS = 60;

/** One KV entry, in the shape `wrangler kv bulk put` reads. */
export interface KvEntry {
  key: string;
  value: string;
}

/*
 * Key layout (one entry per credential, secrets only as SHA-256 hex digests):
 *   apikey:<sha256 of the key>      {"id", "resources", "preview"}
 *   pat:<sha256 of the token>       {"member", "resources", "preview"}
 *   client:<client id>              {"id", "secret_sha256", "resources", "preview"}
 *                                   or, while its secret is rotated, a list of two such objects
 * `resources` is "*" or a list of resource families, as in a CREDENTIALS_FILE.
 */

/**
 * Credentials looked up in a key-value namespace, one read per lookup. Each value is read as a
 * one-entry credential document, so it is validated exactly like a CREDENTIALS_FILE; a malformed
 * entry is an operator error and surfaces as a 500 with a log line, never as access.
 */
export class KvCredentialStore implements CredentialStore {
  constructor(private readonly kv: JsonKeyValue) {}

  async apiKey(digest: string): Promise<Principal | undefined> {
    const value = await this.read(`apikey:${digest}`);
    return value && storeOf({ projects: [{ ...value, key_sha256: digest }] }).apiKey(digest);
  }

  async personalToken(digest: string): Promise<Principal | undefined> {
    const value = await this.read(`pat:${digest}`);
    return value && storeOf({ personal_tokens: [{ ...value, token_sha256: digest }] }).personalToken(digest);
  }

  async client(clientId: string): Promise<OAuthClient | undefined> {
    const value = await this.read(`client:${clientId}`, { list: true });
    const secrets = Array.isArray(value) ? value : value && [value];
    return secrets && storeOf({ clients: secrets.map((secret) => ({ ...secret, id: clientId })) }).client(clientId);
  }

  async tokenClient(clientId: string, credential: string | undefined): Promise<Principal | undefined> {
    return holderOf(await this.client(clientId), credential);
  }

  private async read(key: string): Promise<Record<string, unknown> | undefined>;
  private async read(key: string, options: { list: true }): Promise<Record<string, unknown> | Record<string, unknown>[] | undefined>;
  private async read(key: string, { list = false } = {}): Promise<Record<string, unknown> | Record<string, unknown>[] | undefined> {
    const value = await this.kv.get(key, { type: 'json', cacheTtl: KV_CACHE_TTL_SECONDS });
    if (value === null || value === undefined) return undefined;
    const kind = key.split(':')[0];
    const object = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
    if (list && Array.isArray(value) && value.length > 0 && value.every(object)) return value as Record<string, unknown>[];
    if (!object(value)) throw new Error(`credential entry ${kind} must be a JSON object${list ? ' or a list of them' : ''}`);
    return value as Record<string, unknown>;
  }
}

function storeOf(doc: unknown): MemoryCredentialStore {
  return new MemoryCredentialStore(parseCredentialDocument(doc));
}

/**
 * The KV store when the namespace is bound. Otherwise the demo store, with a warning, only where
 * `DEMO_CREDENTIALS=allow` says so (the local configuration): a deployed worker whose binding was
 * forgotten refuses to serve rather than serve the published demo secrets (docs/reference/operations.md).
 */
export function kvOrDemoCredentials(kv: JsonKeyValue | undefined, demoAllowed: boolean, warn: (message: string) => void): CredentialStore {
  if (kv) return new KvCredentialStore(kv);
  if (!demoAllowed) {
    throw new ConfigError(
      'CREDENTIALS',
      'is not bound: bind the CREDENTIALS KV namespace (wrangler.toml), or set DEMO_CREDENTIALS=allow to serve the demo credentials',
    );
  }
  warn('The CREDENTIALS KV namespace is not bound: serving with the bundled demo credentials.');
  return new MemoryCredentialStore(DEMO_CREDENTIALS);
}

/** A credential document (e.g. a CREDENTIALS_FILE) as KV entries in the layout above. */
export function kvEntries(json: unknown): KvEntry[] {
  const doc: CredentialDocument = parseCredentialDocument(json);
  const entry = (key: string, value: object): KvEntry => ({ key, value: JSON.stringify(value) });
  return [
    ...(doc.projects ?? []).map(({ key_sha256, ...rest }) => entry(`apikey:${key_sha256}`, rest)),
    ...(doc.personal_tokens ?? []).map(({ token_sha256, ...rest }) => entry(`pat:${token_sha256}`, rest)),
    ...clientEntries(doc.clients ?? []).map(([id, secrets]) => entry(`client:${id}`, secrets.length === 1 ? secrets[0]! : secrets)),
  ];
}

/** A client's entries (one, or two while its secret is rotated) under its id, in document order. */
function clientEntries<T extends { id: string }>(clients: readonly T[]): Array<[string, T[]]> {
  const byId = new Map<string, T[]>();
  for (const client of clients) byId.set(client.id, [...(byId.get(client.id) ?? []), client]);
  return [...byId];
}
