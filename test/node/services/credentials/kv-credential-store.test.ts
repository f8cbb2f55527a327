import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scratchDir } from '../../../support/scratch';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../../src/core/crypto';
import { MemoryCredentialStore, type CredentialDocument } from '../../../../src/services/credentials/credential-store';
import { DEMO_CREDENTIALS } from '../../../../src/services/credentials/demo-credentials';
import {
  KV_CACHE_TTL_SECONDS,
  KvCredentialStore,
  kvEntries,
  kvOrDemoCredentials,
  type JsonKeyValue,
} from '../../../../src/services/credentials/kv-credential-store';

/** A key-value namespace in memory, answering a JSON `get` as Workers KV does (null when absent), recording each read. */
class MapKv implements JsonKeyValue {
  readonly map = new Map<string, string>();
  readonly reads: Array<{ key: string; cacheTtl: number }> = [];
  async get(key: string, options: { type: 'json'; cacheTtl: number }): Promise<unknown> {
    this.reads.push({ key, cacheTtl: options.cacheTtl });
    const value = this.map.get(key);
    return value === undefined ? null : JSON.parse(value);
  }
}

const kvWith = (json: unknown) => {
  const kv = new MapKv();
  for (const { key, value } of kvEntries(json)) kv.map.set(key, value);
  return kv;
};

describe('KvCredentialStore', () => {
  it('holds the same credentials as the document it was loaded from (demo store round trip)', async () => {
    const memory = new MemoryCredentialStore(DEMO_CREDENTIALS);
    const kv = new KvCredentialStore(kvWith(DEMO_CREDENTIALS));
    for (const secret of ['demo-project-key', 'demo-species-only-key', 'demo-personal-token', 'not-a-credential']) {
      const digest = await sha256Hex(secret);
      expect(await kv.apiKey(digest), secret).toEqual(await memory.apiKey(digest));
      expect(await kv.personalToken(digest), secret).toEqual(await memory.personalToken(digest));
    }
    expect(await kv.apiKey(await sha256Hex('demo-project-key'))).toMatchObject({ kind: 'project', id: 'demo' });
    expect(await kv.client('demo-client')).toEqual(await memory.client('demo-client'));
    expect(await kv.client('demo-client')).toBeDefined();
    expect(await kv.client('nobody')).toBeUndefined();
  });

  it('reads every entry with a cacheTtl, so a location asks KV from afar at most once a minute per credential', async () => {
    const kv = kvWith(DEMO_CREDENTIALS);
    const store = new KvCredentialStore(kv);
    await store.apiKey(await sha256Hex('demo-project-key'));
    await store.personalToken(await sha256Hex('demo-personal-token'));
    await store.client('demo-client');
    expect(kv.reads.map((r) => r.key.split(':')[0])).toEqual(['apikey', 'pat', 'client']);
    for (const read of kv.reads) expect(read.cacheTtl).toBe(KV_CACHE_TTL_SECONDS);
    expect(KV_CACHE_TTL_SECONDS).toBeGreaterThanOrEqual(30);
  });

  it('writes keys by digest and values without plaintext secrets', () => {
    const entries = kvEntries(DEMO_CREDENTIALS);
    expect(entries.map((e) => e.key.split(':')[0]).sort()).toEqual(['apikey', 'apikey', 'client', 'pat']);
    // A client with one secret is one object, as `wrangler kv` users write it by hand; a list only while it is rotated.
    expect(JSON.parse(entries.find((e) => e.key === 'client:demo-client')!.value)).toEqual({
      id: 'demo-client',
      secret_sha256: DEMO_CREDENTIALS.clients![0]!.secret_sha256,
      resources: '*',
      preview: true,
    });
    const everything = JSON.stringify(entries);
    for (const secret of ['demo-project-key', 'demo-client-secret', 'demo-personal-token']) expect(everything).not.toContain(`"${secret}"`);
  });

  it('keeps a rotated client as one entry holding both secrets, and knows which secret a token names', async () => {
    const [a, b] = [await sha256Hex('old-secret'), await sha256Hex('new-secret')];
    const doc: CredentialDocument = { clients: [a, b].map((secret_sha256) => ({ id: 'ci', secret_sha256, resources: ['species'], preview: true })) };
    const entries = kvEntries(doc);
    expect(entries.map((e) => e.key)).toEqual(['client:ci']);
    expect(JSON.parse(entries[0]!.value)).toHaveLength(2);
    const kv = new KvCredentialStore(kvWith(doc));
    const memory = new MemoryCredentialStore(doc);
    expect(await kv.client('ci')).toEqual(memory.client('ci'));
    expect((await kv.client('ci'))?.secretDigests).toEqual([a, b]);
    expect(await kv.tokenClient('ci', b.slice(0, 16))).toMatchObject({ kind: 'client', id: 'ci' });
    expect(await kv.tokenClient('ci', 'f'.repeat(16)), 'a secret the client does not hold').toBeUndefined();
    expect(await kv.tokenClient('other', b.slice(0, 16))).toBeUndefined();
  });

  it('rejects a malformed entry instead of granting access', async () => {
    const kv = new MapKv();
    const digest = await sha256Hex('k');
    kv.map.set(`apikey:${digest}`, JSON.stringify({ id: 'p', resources: ['species', 'everything'] }));
    await expect(new KvCredentialStore(kv).apiKey(digest)).rejects.toThrow(/resources/);
    kv.map.set(`apikey:${digest}`, JSON.stringify(['not', 'an', 'object']));
    await expect(new KvCredentialStore(kv).apiKey(digest)).rejects.toThrow(new Error('credential entry apikey must be a JSON object'));
    // Only a client's entry may be a list (its two secrets while they are rotated).
    kv.map.set(`apikey:${digest}`, JSON.stringify([{ id: 'p', resources: '*' }]));
    await expect(new KvCredentialStore(kv).apiKey(digest)).rejects.toThrow(new Error('credential entry apikey must be a JSON object'));
    kv.map.set(`pat:${digest}`, JSON.stringify('member'));
    await expect(new KvCredentialStore(kv).personalToken(digest)).rejects.toThrow(new Error('credential entry pat must be a JSON object'));
    for (const value of [[], [{ secret_sha256: digest, resources: '*' }, 'second'], 'ci']) {
      kv.map.set('client:ci', JSON.stringify(value));
      await expect(new KvCredentialStore(kv).client('ci'), JSON.stringify(value)).rejects.toThrow(
        new Error('credential entry client must be a JSON object or a list of them'),
      );
    }
  });

  it('falls back to the demo store, with a warning, when no namespace is bound and DEMO_CREDENTIALS=allow', async () => {
    const warnings: string[] = [];
    const store = kvOrDemoCredentials(undefined, true, (m) => warnings.push(m));
    expect(await store.apiKey(await sha256Hex('demo-project-key'))).toMatchObject({ id: 'demo' });
    expect(warnings).toEqual([expect.stringMatching(/CREDENTIALS KV namespace is not bound/)]);

    const bound = kvOrDemoCredentials(new MapKv(), true, (m) => warnings.push(m));
    expect(bound).toBeInstanceOf(KvCredentialStore);
    expect(await bound.apiKey(await sha256Hex('demo-project-key'))).toBeUndefined();
    expect(warnings).toHaveLength(1);
  });

  it('without DEMO_CREDENTIALS=allow, refuses to stand in for a missing namespace: one line naming the binding', () => {
    expect(() => kvOrDemoCredentials(undefined, false, () => {})).toThrow(/^Invalid configuration: CREDENTIALS is not bound: .*DEMO_CREDENTIALS=allow/);
    expect(kvOrDemoCredentials(new MapKv(), false, () => {})).toBeInstanceOf(KvCredentialStore);
  });
});

describe('scripts/kv-credentials.ts', () => {
  it('turns a CREDENTIALS_FILE into `wrangler kv bulk put` input, and names a bad entry', () => {
    const dir = scratchDir('kv-credentials');
    const good = join(dir, 'good.json');
    writeFileSync(good, JSON.stringify(DEMO_CREDENTIALS));
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ projects: [{ id: 'x', key_sha256: 'plaintext', resources: '*' }] }));
    const run = (file: string) => execFileSync('npx', ['tsx', 'scripts/kv-credentials.ts', file], { encoding: 'utf8', stdio: 'pipe' });

    expect(JSON.parse(run(good))).toEqual(kvEntries(DEMO_CREDENTIALS));
    expect(() => run(bad)).toThrow(/projects\[0\]\.key_sha256 must be a SHA-256 hex digest/);
  });

  it('answers --help with its usage, and refuses an option it does not know, reading no file of that name', () => {
    const run = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'scripts/kv-credentials.ts', ...args], { encoding: 'utf8' });
    const help = run('--help');
    expect(help.status, help.stderr).toBe(0);
    expect(help.stderr).toMatch(/^usage: npm run ops:kv-credentials -- <credentials\.json \| --demo> \[--out FILE\]/);
    expect(help.stdout).toBe('');
    const unknown = run('--bogus');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/^usage:/);
    expect(unknown.stderr).not.toMatch(/ENOENT|no such file/);
  });
});
