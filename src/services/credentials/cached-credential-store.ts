import { andThen } from '../../core/maybe-promise';
import { LRUCache } from 'lru-cache';
import { entryBytes } from '../cache/entry-size';
import type { Clock } from '../clock';
import type { CredentialStore, Looked, OAuthClient, Principal } from './credential-store';

/** How long an isolate answers from a principal it read, at most. */
export const PRINCIPAL_SECONDS = 30;

/** Principals kept at most (a few hundred bytes each). */
const MAX_PRINCIPALS = 1000;
/** A held principal's own bytes, counted beside its key (a digest) and the entry's overhead. */
const HELD_BYTES = 512;
/** Bytes the principals may take: only credentials the store found are kept, never a guess. */
export const PRINCIPAL_BYTES = 1024 * 1024;

interface Held {
  principal: Principal;
  /** The clock's time from which the principal is read again. */
  until: number;
}

/**
 * A remote credential store (Workers KV) whose found principals are kept for `PRINCIPAL_SECONDS`,
 * so an isolate reads a credential's entry once in that time rather than on every request.
 *
 * Kept by the SHA-256 digest the store itself is keyed by, never by the secret, and by kind: a
 * digest only ever answers with the principal of its own entry. Only credentials the store found
 * are kept: an unknown digest reads the store every time, so a key just added works at once and a
 * guess is never answered from memory. A key deleted from the store stops working at most
 * `PRINCIPAL_SECONDS` after the store stops returning it (KV itself takes up to about a minute to
 * propagate a deletion), and so do the access tokens of a deleted client (kept like a principal, by
 * client id and the secret they were issued to). OAuth clients authenticating a token request are
 * always read, so a client's new secret works at once. The failure
 * throttle runs before any lookup, so a throttled address never reaches this store either.
 */
export class CachedCredentialStore implements CredentialStore {
  private readonly held = new LRUCache<string, Held>({
    max: MAX_PRINCIPALS,
    maxSize: PRINCIPAL_BYTES,
    sizeCalculation: (_, key) => entryBytes(key, HELD_BYTES),
  });

  constructor(
    private readonly store: CredentialStore,
    private readonly clock: Clock,
    private readonly keepMs = PRINCIPAL_SECONDS * 1000,
  ) {}

  apiKey(digest: string): Looked<Principal> {
    return this.lookup(`apikey:${digest}`, () => this.store.apiKey(digest));
  }

  personalToken(digest: string): Looked<Principal> {
    return this.lookup(`pat:${digest}`, () => this.store.personalToken(digest));
  }

  client(clientId: string): Looked<OAuthClient> {
    return this.store.client(clientId);
  }

  tokenClient(clientId: string, credential: string | undefined): Looked<Principal> {
    return this.lookup(`token:${clientId}:${credential ?? ''}`, () => this.store.tokenClient(clientId, credential));
  }

  private lookup(key: string, read: () => Looked<Principal>): Looked<Principal> {
    // The bound counts from the moment of the read, not from when the store answered.
    const now = this.clock.now();
    const held = this.held.get(key);
    if (held && now < held.until) return held.principal;
    if (held) this.held.delete(key);
    const keep = (principal: Principal | undefined) => {
      if (principal) this.held.set(key, { principal, until: now + this.keepMs });
      return principal;
    };
    const found = read();
    return andThen(found, keep);
  }
}
