/**
 * The edge's principals kept per isolate (CachedCredentialStore over Workers KV): a found
 * credential is read once per bound, by digest and kind; nothing else is ever answered from
 * memory, and nothing is answered past the bound.
 */
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../../src/core/crypto';
import { ManualClock } from '../../../../src/services/clock';
import { CachedCredentialStore, PRINCIPAL_SECONDS } from '../../../../src/services/credentials/cached-credential-store';
import { credentialIdOf, MemoryCredentialStore } from '../../../../src/services/credentials/credential-store';
import { DEMO_CREDENTIALS } from '../../../../src/services/credentials/demo-credentials';
import { KvCredentialStore, kvEntries, type JsonKeyValue } from '../../../../src/services/credentials/kv-credential-store';

/** Workers KV in memory, counting its reads by key prefix. */
class CountingKv implements JsonKeyValue {
  readonly map = new Map(kvEntries(DEMO_CREDENTIALS).map(({ key, value }) => [key, value]));
  readonly reads: string[] = [];
  async get(key: string, _options: { type: 'json'; cacheTtl: number }): Promise<unknown> {
    this.reads.push(key);
    const value = this.map.get(key);
    return value === undefined ? null : JSON.parse(value);
  }
}

function cached() {
  const kv = new CountingKv();
  const clock = new ManualClock(Date.parse('2026-11-21T12:00:00Z'));
  return { kv, clock, store: new CachedCredentialStore(new KvCredentialStore(kv), clock) };
}

const BOUND_MS = PRINCIPAL_SECONDS * 1000;

describe('CachedCredentialStore', () => {
  it('reads a found credential once within the bound, and answers the same principal as the store', async () => {
    const { kv, store } = cached();
    const digest = await sha256Hex('demo-project-key');
    const first = await store.apiKey(digest);
    expect(first).toMatchObject({ kind: 'project', id: 'demo' });
    // Kept: answered at once, without a promise, and without a read.
    expect(store.apiKey(digest)).toEqual(first);
    expect(store.apiKey(digest)).not.toBeInstanceOf(Promise);
    expect(kv.reads).toHaveLength(1);
  });

  it('stops answering a deleted credential once the bound has passed since it was read', async () => {
    const { kv, clock, store } = cached();
    const digest = await sha256Hex('demo-project-key');
    await store.apiKey(digest);
    kv.map.delete(`apikey:${digest}`);
    clock.advance(BOUND_MS - 1);
    expect(await store.apiKey(digest)).toMatchObject({ id: 'demo' });
    clock.advance(1);
    expect(await store.apiKey(digest)).toBeUndefined();
    expect(kv.reads).toHaveLength(2);
  });

  it('reads the store again after the bound, so a changed entry is seen', async () => {
    const { kv, clock, store } = cached();
    const digest = await sha256Hex('demo-project-key');
    await store.apiKey(digest);
    kv.map.set(`apikey:${digest}`, JSON.stringify({ id: 'demo', resources: ['species'] }));
    clock.advance(BOUND_MS);
    expect(await store.apiKey(digest)).toMatchObject({ id: 'demo', access: { resources: ['species'] } });
  });

  it('never keeps an unknown credential: one added later works at once, and each guess reads the store', async () => {
    const { kv, store } = cached();
    const digest = await sha256Hex('a-key-not-yet-issued');
    expect(await store.apiKey(digest)).toBeUndefined();
    expect(await store.apiKey(digest)).toBeUndefined();
    expect(kv.reads).toHaveLength(2);
    kv.map.set(`apikey:${digest}`, JSON.stringify({ id: 'new-project', resources: '*' }));
    expect(await store.apiKey(digest)).toMatchObject({ id: 'new-project' });
  });

  it('answers a digest only with the principal of its own entry and kind', async () => {
    const { store } = cached();
    const project = await sha256Hex('demo-project-key');
    const limited = await sha256Hex('demo-species-only-key');
    const member = await sha256Hex('demo-personal-token');
    expect(await store.apiKey(project)).toMatchObject({ id: 'demo' });
    expect(await store.apiKey(limited)).toMatchObject({ id: 'demo-limited', access: { resources: ['species'] } });
    expect(await store.personalToken(member)).toMatchObject({ kind: 'member', id: 'demo-member' });
    // A digest kept as one kind is not an answer for the other.
    expect(await store.personalToken(project)).toBeUndefined();
    expect(await store.apiKey(member)).toBeUndefined();
    expect(store.apiKey(limited)).toMatchObject({ id: 'demo-limited' });
  });

  it('keeps neither the secret nor anything but digests as keys', async () => {
    const { store } = cached();
    await store.apiKey(await sha256Hex('demo-project-key'));
    expect(JSON.stringify([...(store as unknown as { held: Map<string, unknown> }).held.keys()])).not.toContain('demo-project-key');
  });

  it('keeps the client behind a token by client id and the secret the token names, never for another secret', async () => {
    const { kv, store } = cached();
    const secret = await sha256Hex('demo-client-secret');
    const named = credentialIdOf(secret);
    expect(await store.tokenClient('demo-client', named)).toMatchObject({ kind: 'client', id: 'demo-client' });
    expect(store.tokenClient('demo-client', named), 'kept').toMatchObject({ id: 'demo-client' });
    expect(await store.tokenClient('demo-client', 'f'.repeat(16)), 'a secret the client does not hold').toBeUndefined();
    expect(await store.tokenClient('another-client', named), 'another client').toBeUndefined();
    expect(await store.tokenClient('demo-client', undefined), 'a token naming no secret').toMatchObject({ id: 'demo-client' });
    expect(kv.reads).toEqual(['client:demo-client', 'client:demo-client', 'client:another-client', 'client:demo-client']);
  });

  it('answers at once over a store that answers at once (the credential file)', () => {
    const clock = new ManualClock(0);
    const store = new CachedCredentialStore(new MemoryCredentialStore(DEMO_CREDENTIALS), clock);
    const digest = DEMO_CREDENTIALS.projects![0]!.key_sha256;
    expect(store.apiKey(digest)).toMatchObject({ kind: 'project', id: 'demo' });
    expect(store.apiKey(digest)).toMatchObject({ kind: 'project', id: 'demo' });
    expect(store.personalToken(digest)).toBeUndefined();
  });

  it('reads OAuth clients from the store every time', async () => {
    const { kv, store } = cached();
    expect(await store.client('demo-client')).toMatchObject({ principal: { id: 'demo-client' } });
    expect(await store.client('demo-client')).toBeDefined();
    expect(kv.reads.filter((k) => k.startsWith('client:'))).toHaveLength(2);
  });

  it('lets a failed read fail its request, and keeps nothing from it', async () => {
    const kv = new CountingKv();
    let failing = true;
    const flaky: JsonKeyValue = {
      get: async (key, options) => {
        if (failing) throw new Error('KV unavailable');
        return kv.get(key, options);
      },
    };
    const store = new CachedCredentialStore(new KvCredentialStore(flaky), new ManualClock(0));
    const digest = await sha256Hex('demo-project-key');
    await expect(store.apiKey(digest)).rejects.toThrow(/KV unavailable/);
    failing = false;
    expect(await store.apiKey(digest)).toMatchObject({ id: 'demo' });
    expect(kv.reads).toHaveLength(1);
  });
});
