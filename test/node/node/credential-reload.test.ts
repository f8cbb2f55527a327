/**
 * The credential file, live, in process (src/node/credential-reload.ts; docs/reference/operations.md and
 * 22, docs/credentials.md): what start-up serves with and without `CREDENTIALS_FILE`, a reload on
 * demand (`SIGHUP`) and on a change of the file (replaced by a rename, as the credentials CLI does),
 * a file that does not validate refused whole with the credentials in force kept and the refusal
 * reported by `status()`, and a file emptied of its last credential applied: every key refused.
 * What a caller sees is checked through a gateway over the live store; the process-level behaviour
 * (a real `SIGHUP`, revocation within 2 s) stays in credential-reload.test.ts.
 */
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { writeFileAtomic } from '../../../scripts/credentials/files';
import { ConfigError } from '../../../src/config';
import { sha256Hex } from '../../../src/core/crypto';
import { type LiveCredentials, liveCredentials, startupCredentials } from '../../../src/node/credential-reload';
import { credentialIdOf } from '../../../src/services/credentials/credential-store';
import type { LogLine } from '../../../src/services/log';
import { diskApp } from '../../support/gateway';
import { scratchDir } from '../../support/scratch';

interface Doc {
  projects?: string[];
  clients?: Array<[string, string]>;
  tokens?: Array<[string, string]>;
}

/** The credential document for `doc`: each project's key is `key-<id>`. */
async function document(doc: Doc): Promise<string> {
  return JSON.stringify({
    projects: await Promise.all((doc.projects ?? []).map(async (id) => ({ id, key_sha256: await sha256Hex(`key-${id}`), resources: '*' }))),
    clients: await Promise.all((doc.clients ?? []).map(async ([id, secret]) => ({ id, secret_sha256: await sha256Hex(secret), resources: ['species'] }))),
    personal_tokens: await Promise.all((doc.tokens ?? []).map(async ([member, token]) => ({ member, token_sha256: await sha256Hex(token), resources: '*' }))),
  });
}

/** A new credential file holding `doc`, in a scratch directory of its own. */
async function credentialFile(doc: Doc): Promise<string> {
  const file = join(scratchDir('live-credentials'), 'credentials.json');
  writeFileAtomic(file, await document(doc));
  return file;
}

/** The file replaced as the credentials CLI replaces it: a new file renamed over the old one. */
async function replace(file: string, doc: Doc): Promise<void> {
  writeFileAtomic(file, await document(doc));
}

const started: LiveCredentials[] = [];
afterEach(() => {
  for (const live of started.splice(0)) live.stop();
  vi.useRealTimers();
});

/** Live credentials over `file`, with every log line and warning kept; `onLine` sees each line as it is logged. */
function live(file: string | undefined, { pollMs = 60_000, onLine }: { pollMs?: number; onLine?: (line: LogLine) => void } = {}) {
  const lines: LogLine[] = [];
  const warnings: string[] = [];
  const credentials = liveCredentials(file, {
    log: (line) => {
      lines.push(line);
      onLine?.(line);
    },
    warn: (message) => warnings.push(message),
    pollMs,
  });
  started.push(credentials);
  // A gateway over the live store: what a caller sees after each reload.
  const gateway = diskApp({ services: { credentials: credentials.store } });
  const status = async (id: string) => (await gateway.get('/v2/species/ABBA', { Authorization: `ApiKey key-${id}` })).status;
  return { credentials, lines, warnings, status };
}

describe('at start-up', () => {
  it('without CREDENTIALS_FILE serves the demo credentials, with a warning', async () => {
    const { credentials, warnings, lines } = live(undefined);
    expect(warnings).toEqual(['CREDENTIALS_FILE is not set: serving with the bundled demo credentials.']);
    expect(credentials.store.counts()).toEqual({ projects: 2, clients: 1, personal_tokens: 1 });
    const gateway = diskApp({ services: { credentials: credentials.store } });
    expect((await gateway.get('/v2/species/ABBA')).status).toBe(200);
    // A SIGHUP without a file reads nothing and says so.
    credentials.reload('SIGHUP');
    expect(lines).toEqual([{ level: 'info', message: 'SIGHUP: no CREDENTIALS_FILE to read again; the demo credentials stay' }]);
    expect(credentials.status().successful).toBe(true);
  });

  it('serves the file: its keys are accepted, the demo key is not', async () => {
    const { credentials, warnings, status } = live(await credentialFile({ projects: ['acme'] }));
    expect(warnings).toEqual([]);
    expect(credentials.store.counts()).toEqual({ projects: 1, clients: 0, personal_tokens: 0 });
    expect(await status('acme')).toBe(200);
    expect(await status('other')).toBe(401);
    expect(credentials.status().successful).toBe(true);
  });

  it('refuses a file that does not validate, an empty one or none at the path, naming CREDENTIALS_FILE and the file', async () => {
    const dir = scratchDir('live-credentials');
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ projects: [{ id: 'acme', key_sha256: 'not-a-digest', resources: '*' }] }));
    const empty = join(dir, 'empty.json');
    writeFileSync(empty, JSON.stringify({ projects: [] }));
    const missing = join(dir, 'missing.json');
    const refusal = (file: string) => {
      try {
        startupCredentials(file, () => {});
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as Error).message;
      }
      throw new Error(`${file} was accepted`);
    };
    expect(refusal(bad)).toBe(
      `Invalid configuration: CREDENTIALS_FILE (${bad}) could not be loaded: credential document: projects[0].key_sha256 must be a SHA-256 hex digest`,
    );
    // Start-up on a file with no credential would refuse everyone: refused (a reload applies it).
    expect(refusal(empty)).toMatch(/^Invalid configuration: CREDENTIALS_FILE \(.*empty\.json\) could not be loaded: credential document: holds no credentials/);
    expect(refusal(missing)).toMatch(/^Invalid configuration: CREDENTIALS_FILE \(.*missing\.json\) could not be loaded: ENOENT/);
    expect(() => liveCredentials(bad, { log: () => {}, warn: () => {} })).toThrow(ConfigError);
  });

  it.skipIf(process.getuid?.() === 0)('refuses a file this user may not read, saying how to fix its mode (skipped as root, who reads any file)', async () => {
    const file = await credentialFile({ projects: ['acme'] });
    chmodSync(file, 0o000);
    expect(() => startupCredentials(file, () => {})).toThrow(/may not read it: give it the gateway's group and mode 0640/);
  });
});

describe('a reload', () => {
  it('on demand swaps in the new file whole: a revoked key is refused, a new one accepted, with one info line and the counts', async () => {
    const file = await credentialFile({ projects: ['old'] });
    const { credentials, lines, status } = live(file);
    expect(await status('old')).toBe(200);
    await replace(file, { projects: ['new'], tokens: [['member-a', 'token-a']] });
    // Not polled in this test: nothing changes before the reload.
    expect(await status('new')).toBe(401);
    credentials.reload('SIGHUP');
    expect(await status('old')).toBe(401);
    expect(await status('new')).toBe(200);
    expect(lines).toEqual([
      { level: 'info', message: 'credentials reloaded', trigger: 'SIGHUP', file, credentials: { projects: 1, clients: 0, personal_tokens: 1 } },
    ]);
    expect(credentials.store.counts()).toEqual({ projects: 1, clients: 0, personal_tokens: 1 });
  });

  it('swaps personal tokens and OAuth clients too: a revoked secret ends its tokens, the rotated one holds', async () => {
    const file = await credentialFile({ clients: [['robot', 'secret-1']], tokens: [['member-a', 'token-a']] });
    const { credentials } = live(file);
    const [one, two] = [await sha256Hex('secret-1'), await sha256Hex('secret-2')];
    expect(credentials.store.personalToken(await sha256Hex('token-a'))?.id).toBe('member-a');
    expect(credentials.store.client('robot')?.secretDigests).toEqual([one]);
    expect(credentials.store.tokenClient('robot', credentialIdOf(one))?.id).toBe('robot');
    // Rotation: the new secret beside the old, then the old one revoked.
    await replace(file, {
      clients: [
        ['robot', 'secret-1'],
        ['robot', 'secret-2'],
      ],
    });
    credentials.reload('SIGHUP');
    expect(credentials.store.client('robot')?.secretDigests).toEqual([one, two]);
    expect(credentials.store.personalToken(await sha256Hex('token-a'))).toBeUndefined();
    await replace(file, { clients: [['robot', 'secret-2']] });
    credentials.reload('SIGHUP');
    expect(credentials.store.tokenClient('robot', credentialIdOf(one))).toBeUndefined();
    expect(credentials.store.tokenClient('robot', credentialIdOf(two))?.access.resources).toEqual(['species']);
  });

  it('warns of an empty file only when it holds no credential of any kind', async () => {
    const file = await credentialFile({ projects: ['acme'] });
    const { credentials, lines } = live(file);
    // As many projects as clients, and no personal token: not empty.
    await replace(file, { projects: ['acme'], clients: [['robot', 'secret-1']] });
    credentials.reload('SIGHUP');
    await replace(file, { tokens: [['member-a', 'token-a']] });
    credentials.reload('SIGHUP');
    expect(lines.map((l) => [l.level, l.credentials])).toEqual([
      ['info', { projects: 1, clients: 1, personal_tokens: 0 }],
      ['info', { projects: 0, clients: 0, personal_tokens: 1 }],
    ]);
  });

  it('of a file that does not validate keeps the credentials in force, logs one error line and reports the refusal', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse('2026-11-21T12:00:00Z'));
    const file = await credentialFile({ projects: ['acme'] });
    const { credentials, lines, status } = live(file);
    expect(credentials.status()).toEqual({ successful: true, lastSuccessMs: Date.parse('2026-11-21T12:00:00Z') });

    vi.setSystemTime(Date.parse('2026-11-21T12:05:00Z'));
    writeFileAtomic(file, JSON.stringify({ project: [] }));
    credentials.reload('file changed');
    expect(await status('acme')).toBe(200);
    expect(lines).toEqual([
      {
        level: 'error',
        message: `credentials not reloaded (file changed): ${file}: credential document: unknown key "project": the lists are projects, clients, personal_tokens; the credentials in force are kept`,
        file,
      },
    ]);
    // What /metrics reports: refused, and the last success still start-up's.
    expect(credentials.status()).toEqual({ successful: false, lastSuccessMs: Date.parse('2026-11-21T12:00:00Z') });

    // Not JSON at all is refused the same way.
    writeFileSync(file, '{"projects": [');
    credentials.reload('SIGHUP');
    expect(lines.at(-1)?.message).toMatch(/^credentials not reloaded \(SIGHUP\): .*JSON.*; the credentials in force are kept$/);
    expect(await status('acme')).toBe(200);

    // A good file again: applied, and reported so.
    vi.setSystemTime(Date.parse('2026-11-21T12:10:00Z'));
    await replace(file, { projects: ['acme', 'beta'] });
    credentials.reload('SIGHUP');
    expect(await status('beta')).toBe(200);
    expect(credentials.status()).toEqual({ successful: true, lastSuccessMs: Date.parse('2026-11-21T12:10:00Z') });
  });

  it('of a file that was removed keeps the credentials in force and says the file does not exist', async () => {
    const file = await credentialFile({ projects: ['acme'] });
    const { credentials, lines, status } = live(file);
    rmSync(file);
    credentials.reload('SIGHUP');
    expect(lines).toEqual([
      { level: 'error', message: `credentials not reloaded (SIGHUP): ${file}: the file does not exist; the credentials in force are kept`, file },
    ]);
    expect(credentials.status().successful).toBe(false);
    expect(await status('acme')).toBe(200);
  });

  it('of a file emptied of its last credential applies it: every key is refused, with a warning', async () => {
    const file = await credentialFile({ projects: ['acme'], tokens: [['member-a', 'token-a']] });
    const { credentials, lines, status } = live(file);
    expect(await status('acme')).toBe(200);
    for (const emptied of [{}, { projects: [], clients: [], personal_tokens: [] }]) {
      writeFileAtomic(file, JSON.stringify(emptied));
      credentials.reload('SIGHUP');
      expect(await status('acme'), JSON.stringify(emptied)).toBe(401);
      expect(credentials.store.personalToken(await sha256Hex('token-a'))).toBeUndefined();
      expect(credentials.store.counts()).toEqual({ projects: 0, clients: 0, personal_tokens: 0 });
      expect(credentials.status().successful).toBe(true);
      expect(lines.slice(-2)).toEqual([
        { level: 'info', message: 'credentials reloaded', trigger: 'SIGHUP', file, credentials: { projects: 0, clients: 0, personal_tokens: 0 } },
        { level: 'warn', message: `${file} holds no credentials now: every credential is refused`, file },
      ]);
    }
  });

  it('happens by itself when the file is replaced, and once per change', async () => {
    const file = await credentialFile({ projects: ['old'] });
    let reloaded: (line: LogLine) => void = () => {};
    const { lines, status } = live(file, {
      pollMs: 5,
      onLine: (line) => reloaded(line),
    });
    const next = () => new Promise<LogLine>((resolve) => (reloaded = resolve));
    const first = next();
    await replace(file, { projects: ['new'] });
    expect(await first).toEqual({
      level: 'info',
      message: 'credentials reloaded',
      trigger: 'file changed',
      file,
      credentials: { projects: 1, clients: 0, personal_tokens: 0 },
    });
    expect(await status('old')).toBe(401);
    expect(await status('new')).toBe(200);
    // A refused change is reported by itself too, and the one after it applied.
    const second = next();
    writeFileAtomic(file, 'not json');
    expect((await second).level).toBe('error');
    const third = next();
    await replace(file, { projects: ['third'] });
    expect(await third).toMatchObject({ message: 'credentials reloaded', trigger: 'file changed' });
    expect(await status('third')).toBe(200);
    expect(lines.map((l) => l.level)).toEqual(['info', 'error', 'info']);
  });
});
