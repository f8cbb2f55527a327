/**
 * Credentials change without a restart (docs/reference/operations.md), on a real gateway process: the
 * credential file is read again on a real SIGHUP and when it is replaced (as the credentials CLI
 * replaces it, by a rename), a bad file is refused whole, revocations bite within 2 s (tokens of
 * a revoked client too), and two secrets of one id are one rate-limit bucket and one subject.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../../scripts/credentials/files';
import { sha256Hex } from '../../../src/core/crypto';
import { ROOT, startGatewayProcess, type GatewayProcess } from '../../../tools/processes';
import { scratchDir } from '../../support/scratch';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const digest = (secret: string) => sha256Hex(secret);

let dir: string;
let file: string;
let gateway: GatewayProcess;

/** The credential file replaced as the CLI replaces it: a new file renamed over the old one. */
async function write(doc: { projects?: Array<[string, string]>; clients?: Array<[string, string]>; tokens?: Array<[string, string]> }) {
  const json = {
    projects: await Promise.all((doc.projects ?? []).map(async ([id, key]) => ({ id, key_sha256: await digest(key), resources: '*' }))),
    clients: await Promise.all((doc.clients ?? []).map(async ([id, secret]) => ({ id, secret_sha256: await digest(secret), resources: '*', preview: true }))),
    personal_tokens: await Promise.all((doc.tokens ?? []).map(async ([member, token]) => ({ member, token_sha256: await digest(token), resources: '*' }))),
  };
  writeFileAtomic(file, JSON.stringify(json));
}

const get = (authorization: string, path = '/v2/species/ABBA') => fetch(`${gateway.origin}${path}`, { headers: { Authorization: authorization } });
const status = async (authorization: string) => (await get(authorization)).status;

async function token(clientId: string, secret: string): Promise<Response> {
  return fetch(`${gateway.origin}/oauth/token`, {
    method: 'POST',
    headers: { Authorization: `Basic ${btoa(`${clientId}:${secret}`)}`, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
}
async function accessToken(clientId: string, secret: string): Promise<string> {
  const res = await token(clientId, secret);
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** Milliseconds from the file's last change until `authorization` is refused (polled every 25 ms, 5 s at most). */
async function refusedAfter(authorization: string): Promise<number> {
  const changed = statSync(file).mtimeMs;
  while ((await status(authorization)) === 200 && Date.now() - changed < 5000) await sleep(25);
  return Date.now() - changed;
}

/** The JSON lines the gateway wrote after `from`, that `match`. */
const linesSince = (from: number, match: (line: Record<string, unknown>) => boolean) =>
  gateway.lines
    .slice(from)
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter(match);

async function waitForLine(from: number, match: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  for (let i = 0; i < 100; i++) {
    const found = linesSince(from, match)[0];
    if (found) return found;
    await sleep(25);
  }
  throw new Error(`no such line after ${from}: ${gateway.lines.slice(from).join('\n')}`);
}

beforeAll(async () => {
  dir = scratchDir('credential-reload');
  file = join(dir, 'credentials.json');
  await write({ projects: [['acme', 'acme-key-1']] });
  gateway = await startGatewayProcess({ CREDENTIALS_FILE: file, RATE_LIMIT_PER_MINUTE: '1000', AUTH_FAILURES_PER_MINUTE: '1000' });
});
afterAll(() => gateway?.stop());

describe('the credential file, read again while the gateway runs', () => {
  it('is read again on SIGHUP, which never stops the process', async () => {
    expect(await status('ApiKey hup-key')).toBe(401);
    const from = gateway.lines.length;
    await write({
      projects: [
        ['acme', 'acme-key-1'],
        ['hup', 'hup-key'],
      ],
    });
    gateway.child.kill('SIGHUP');
    await waitForLine(from, (l) => l.message === 'credentials reloaded' && l.trigger === 'SIGHUP');
    expect(await status('ApiKey hup-key')).toBe(200);
    // A signal with no change reads the file again all the same (so no file watcher answered it).
    const again = gateway.lines.length;
    gateway.child.kill('SIGHUP');
    const line = await waitForLine(again, (l) => l.message === 'credentials reloaded');
    expect(line).toMatchObject({ level: 'info', trigger: 'SIGHUP', credentials: { projects: 2, clients: 0, personal_tokens: 0 } });
    await sleep(200);
    expect(gateway.child.exitCode, gateway.lines.slice(-5).join('\n')).toBeNull();
    expect(gateway.child.signalCode).toBeNull();
    expect(await status('ApiKey acme-key-1')).toBe(200);
  });

  it('is read again when it changes, without a signal: a revoked API key and personal token are refused within 2 s', async () => {
    await write({
      projects: [
        ['acme', 'acme-key-1'],
        ['gone', 'gone-key'],
      ],
      tokens: [['ada', 'ada-token']],
    });
    const from = gateway.lines.length;
    await waitForLine(from, (l) => l.message === 'credentials reloaded' && l.trigger === 'file changed');
    expect(await status('ApiKey gone-key')).toBe(200);
    expect(await status('Bearer ada-token')).toBe(200);

    await write({ projects: [['acme', 'acme-key-1']] });
    expect(await refusedAfter('ApiKey gone-key'), 'API key refused within 2 s').toBeLessThan(2000);
    expect(await status('ApiKey gone-key')).toBe(401);
    expect(await status('Bearer ada-token')).toBe(401);
    expect(await status('ApiKey acme-key-1'), 'the credential that stayed').toBe(200);
  });

  it('applies a file emptied of its last credential: the last revoked key is refused within 2 s, with a warning', async () => {
    await write({ projects: [['acme', 'acme-key-1']] });
    expect(await status('ApiKey acme-key-1')).toBe(200);
    const from = gateway.lines.length;
    await write({});
    expect(await refusedAfter('ApiKey acme-key-1'), 'the last key refused within 2 s').toBeLessThan(2000);
    expect(await status('ApiKey acme-key-1')).toBe(401);
    const warning = await waitForLine(from, (l) => l.level === 'warn');
    expect(warning.message).toMatch(/holds no credentials now: every credential is refused/);
    await write({ projects: [['acme', 'acme-key-1']] });
    await waitForLine(from, (l) => l.message === 'credentials reloaded' && (l.credentials as { projects: number }).projects === 1);
  });

  it.each([
    [
      'a bad entry',
      JSON.stringify({ projects: [{ id: 'acme', key_sha256: 'not-a-digest', resources: '*' }] }),
      /projects\[0\]\.key_sha256 must be a SHA-256 hex digest/,
    ],
    ['a misspelt list', JSON.stringify({ project: [] }), /unknown key "project"/],
    ['half a file', '{"projects": [{"id": "acme",', /JSON/],
  ])('refuses a file with %s whole: the credentials in force stay, and one error line names the problem', async (_, text, problem) => {
    await write({ projects: [['acme', 'acme-key-1']] });
    await sleep(1200);
    const from = gateway.lines.length;
    writeFileAtomic(file, text);
    // Several looks at the unchanged bad file: still one line.
    await sleep(1600);
    const errors = linesSince(from, (l) => l.level === 'error');
    expect(errors, gateway.lines.slice(from).join('\n')).toHaveLength(1);
    expect(errors[0]!.message).toMatch(problem);
    expect(errors[0]!.message).toMatch(/credentials not reloaded \(file changed\).*the credentials in force are kept/);
    expect(await status('ApiKey acme-key-1'), 'the old credentials are still in force').toBe(200);
    // SIGHUP reads it again, and is refused again, with its own line.
    gateway.child.kill('SIGHUP');
    await waitForLine(from, (l) => l.level === 'error' && String(l.message).includes('(SIGHUP)'));
    expect(await status('ApiKey acme-key-1')).toBe(200);
  });

  it('gives a revoked OAuth client no new token, and refuses the tokens it holds within 2 s', async () => {
    await write({ projects: [['acme', 'acme-key-1']], clients: [['ci', 'ci-secret']] });
    await sleep(1200);
    const held = await accessToken('ci', 'ci-secret');
    expect(await status(`Bearer ${held}`)).toBe(200);

    await write({ projects: [['acme', 'acme-key-1']] });
    expect(await refusedAfter(`Bearer ${held}`), 'held token refused within 2 s').toBeLessThan(2000);
    const refused = await get(`Bearer ${held}`);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { code: string }).code).toBe('auth/invalidCredential');
    const again = await token('ci', 'ci-secret');
    expect(again.status).toBe(401);
    expect(((await again.json()) as { error: string }).error).toBe('invalid_client');
  });
});

describe('rotation: two secrets of one id', () => {
  it('counts both keys of a project against one bucket, and logs both as the same subject', async () => {
    await write({
      projects: [
        ['acme', 'acme-key-1'],
        ['rotated', 'old-key'],
        ['rotated', 'new-key'],
      ],
    });
    await sleep(1200);
    const from = gateway.lines.length;
    const first = await get('ApiKey old-key');
    const second = await get('ApiKey new-key');
    expect([first.status, second.status]).toEqual([200, 200]);
    const remaining = (res: Response) => Number(/;r=(\d+)/.exec(res.headers.get('RateLimit') ?? '')?.[1]);
    expect(remaining(first)).toBe(999);
    expect(remaining(second), 'the new key spends the old key’s bucket').toBe(998);
    const ids = [first, second].map((res) => res.headers.get('Svc-Request-Id'));
    const access = await Promise.all(ids.map((id) => waitForLine(from, (l) => l.request_id === id)));
    expect(access.map((l) => [l.subject, l.status])).toEqual([
      ['project:rotated', 200],
      ['project:rotated', 200],
    ]);
  });

  it('serves tokens of both secrets of a client as one subject, and revoking one secret ends only its tokens', async () => {
    await write({
      projects: [['acme', 'acme-key-1']],
      clients: [
        ['ci2', 'ci2-old'],
        ['ci2', 'ci2-new'],
      ],
    });
    await sleep(1200);
    const oldToken = await accessToken('ci2', 'ci2-old');
    const newToken = await accessToken('ci2', 'ci2-new');
    const [a, b] = [await get(`Bearer ${oldToken}`), await get(`Bearer ${newToken}`)];
    expect([a.status, b.status]).toEqual([200, 200]);
    const from = gateway.lines.length - 10;
    const subjects = await Promise.all(
      [a, b].map(async (res) => (await waitForLine(Math.max(0, from), (l) => l.request_id === res.headers.get('Svc-Request-Id'))).subject),
    );
    expect(subjects).toEqual(['client:ci2', 'client:ci2']);

    await write({ projects: [['acme', 'acme-key-1']], clients: [['ci2', 'ci2-new']] });
    expect(await refusedAfter(`Bearer ${oldToken}`)).toBeLessThan(2000);
    expect(await status(`Bearer ${oldToken}`)).toBe(401);
    expect(await status(`Bearer ${newToken}`), 'the new secret’s token stays').toBe(200);
    expect((await token('ci2', 'ci2-old')).status).toBe(401);
    expect((await token('ci2', 'ci2-new')).status).toBe(200);
  });
});

describe('without a credential file', () => {
  it('answers SIGHUP with a line and keeps serving the demo credentials', async () => {
    const demo = await startGatewayProcess({ CREDENTIALS_FILE: '' });
    try {
      const from = demo.lines.length;
      demo.child.kill('SIGHUP');
      for (let i = 0; i < 100 && !demo.lines.slice(from).some((l) => l.includes('no CREDENTIALS_FILE to read again')); i++) await sleep(25);
      expect(demo.lines.slice(from).join('\n')).toMatch(/SIGHUP: no CREDENTIALS_FILE to read again/);
      const res = await fetch(`${demo.origin}/v2/species/ABBA`, { headers: { Authorization: 'ApiKey demo-project-key' } });
      expect(res.status).toBe(200);
      expect(demo.child.exitCode).toBeNull();
    } finally {
      await demo.stop();
    }
  });
});

describe('a reload the gateway could not apply, on /metrics', () => {
  // As root, the gateway runs as nobody/nogroup, reading the file through its group as a service user does.
  const serviceUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;

  it('reports 0 for a refused reload (invalid JSON; unreadable by the gateway’s user), keeping the last success’s time, and 1 again after a good one', async () => {
    const shared = scratchDir('credential-reload-metrics');
    chmodSync(shared, 0o755);
    const path = join(shared, 'credentials.json');
    const good = async (id: string) => JSON.stringify({ projects: [{ id, key_sha256: await digest(`${id}-key`), resources: '*' }] });
    writeFileSync(path, await good('acme'));
    if (serviceUser) chownSync(path, 0, serviceUser.gid);
    chmodSync(path, 0o640);
    const watched = await startGatewayProcess({ CREDENTIALS_FILE: path, METRICS_PORT: '0' }, undefined, serviceUser);
    try {
      const listening = JSON.parse(watched.lines.find((l) => l.includes('gateway listening'))!) as { metrics: { port: number } };
      const scrape = async () => {
        const text = await (await fetch(`http://127.0.0.1:${listening.metrics.port}/metrics`)).text();
        const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
        return {
          successful: value('gateway_credentials_last_reload_successful'),
          at: value('gateway_credentials_last_reload_success_timestamp_seconds'),
        };
      };
      const waitFor = async (from: number, match: (l: string) => boolean) => {
        for (let i = 0; i < 120 && !watched.lines.slice(from).some(match); i++) await sleep(25);
        expect(watched.lines.slice(from).join('\n')).toSatisfy((text: string) => text.split('\n').some(match));
      };
      const started = await scrape();
      expect(started.successful).toBe(1);
      expect(Math.abs(started.at - Date.now() / 1000), 'the start-up read counts as a success').toBeLessThan(30);

      let from = watched.lines.length;
      writeFileAtomic(path, '{"projects": [');
      await waitFor(from, (l) => l.includes('credentials not reloaded'));
      expect(await scrape()).toEqual({ successful: 0, at: started.at });

      from = watched.lines.length;
      await sleep(20);
      writeFileAtomic(path, await good('next'));
      await waitFor(from, (l) => l.includes('credentials reloaded'));
      const applied = await scrape();
      expect(applied.successful).toBe(1);
      expect(applied.at).toBeGreaterThan(started.at);

      if (serviceUser) {
        from = watched.lines.length;
        chmodSync(path, 0o600);
        await waitFor(from, (l) => l.includes('credentials not reloaded') && l.includes('(uid 65534) may not read it'));
        expect(await scrape()).toEqual({ successful: 0, at: applied.at });
        from = watched.lines.length;
        chmodSync(path, 0o640);
        await waitFor(from, (l) => l.includes('credentials reloaded'));
        expect((await scrape()).successful).toBe(1);
      }
    } finally {
      await watched.stop();
    }
  });
});

describe.runIf(process.getuid?.() === 0)('npm run check, as the gateway’s user', () => {
  it('fails with one line naming the user when that user may not read the credential file', async () => {
    const shared = scratchDir('credential-check');
    chmodSync(shared, 0o755);
    const path = join(shared, 'credentials.json');
    writeFileSync(path, JSON.stringify({ projects: [{ id: 'acme', key_sha256: await digest('acme-key'), resources: '*' }] }));
    chmodSync(path, 0o600);
    // `npm run check` is this, after the build's staleness check; the unit runs it as its `User=`.
    const check = spawnSync(process.execPath, ['--import', 'tsx', 'src/node.ts', '--check'], {
      cwd: ROOT,
      encoding: 'utf8',
      uid: 65534,
      gid: 65534,
      env: { ...process.env, CREDENTIALS_FILE: path, HOST: '127.0.0.1', PORT: '0' },
    });
    expect(check.status, check.stdout + check.stderr).toBe(1);
    expect(check.stderr.trim().split('\n')).toEqual([
      `Invalid configuration: CREDENTIALS_FILE (${path}) could not be loaded: this user (uid 65534) may not read it: give it the gateway's group and mode 0640 (root:botanical 0640)`,
    ]);
    expect(check.stdout).not.toMatch(/check passed/);
  });
});
