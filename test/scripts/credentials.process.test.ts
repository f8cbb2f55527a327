import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/core/crypto';
import { parseCredentialDocument } from '../../src/services/credentials/credential-store';
import { kvEntries } from '../../src/services/credentials/kv-credential-store';
import { parseArgs } from '../../scripts/credentials/args';
import { UsageError, addCredential, listCredentials, revokeCredential, type NewCredential } from '../../scripts/credentials/document';
import { kvRevokeCommands } from '../../scripts/credentials/kv-commands';
import { ROOT, startGatewayProcess, type GatewayProcess } from '../../tools/processes';
import { scratchDir } from '../support/scratch';

const DIGEST = 'a'.repeat(64);
const project = (id: string, extra: Partial<NewCredential> = {}): NewCredential => ({
  kind: 'project',
  id,
  digest: DIGEST,
  resources: '*',
  preview: false,
  ...extra,
});

describe('editing a credential document', () => {
  it('adds each kind where the gateway reads it, and lists them without digests', () => {
    let doc: unknown = {};
    doc = addCredential(doc, project('acme', { resources: ['species', 'genus'] }));
    doc = addCredential(doc, { kind: 'client', id: 'acme-ci', digest: 'b'.repeat(64), resources: '*', preview: true });
    doc = addCredential(doc, { kind: 'token', id: 'ada', digest: 'c'.repeat(64), resources: ['plants'], preview: false });
    expect(parseCredentialDocument(doc)).toEqual({
      projects: [{ id: 'acme', key_sha256: DIGEST, resources: ['species', 'genus'], preview: false }],
      clients: [{ id: 'acme-ci', secret_sha256: 'b'.repeat(64), resources: '*', preview: true }],
      personal_tokens: [{ member: 'ada', token_sha256: 'c'.repeat(64), resources: ['plants'], preview: false }],
    });
    const rows = listCredentials(doc);
    expect(rows.map((r) => `${r.kind}:${r.id}`)).toEqual(['project:acme', 'client:acme-ci', 'token:ada']);
    expect(JSON.stringify(rows)).not.toContain(DIGEST);
  });

  it('refuses a duplicate id of the same kind, not of another kind', () => {
    const doc = addCredential({}, project('acme'));
    expect(() => addCredential(doc, project('acme', { digest: 'd'.repeat(64) }))).toThrow(/project acme already exists/);
    expect(listCredentials(addCredential(doc, { ...project('acme'), kind: 'client', digest: 'e'.repeat(64) }))).toHaveLength(2);
  });

  it('revokes by kind and id, and refuses an id that is not there', () => {
    let doc: unknown = addCredential(addCredential({}, project('acme')), { ...project('acme'), kind: 'token', digest: 'e'.repeat(64) });
    const { doc: next, removed } = revokeCredential(doc, { kind: 'project', id: 'acme' });
    expect(removed).toEqual([{ kind: 'project', id: 'acme', digest: DIGEST }]);
    expect(listCredentials(next).map((r) => `${r.kind}:${r.id}`)).toEqual(['token:acme']);
    expect(() => revokeCredential(next, { kind: 'project', id: 'acme' })).toThrow(UsageError);
    doc = next;
    expect(() => revokeCredential(doc, { kind: 'client', id: 'acme' })).toThrow(/no client "acme"/);
  });

  it('revokes the last credential, leaving a document it can add to again', () => {
    const { doc: none } = revokeCredential(addCredential({}, project('acme')), { kind: 'project', id: 'acme' });
    expect(none).toEqual({ projects: [], clients: [], personal_tokens: [] });
    expect(listCredentials(none)).toEqual([]);
    expect(listCredentials(addCredential(none, project('next'))).map((r) => r.id)).toEqual(['next']);
  });

  it('gives an id a second secret only when asked, with the access of the first, and never a third', () => {
    const one = addCredential({}, project('acme', { resources: ['species'] }));
    const two = addCredential(one, project('acme', { digest: 'd'.repeat(64) }), { addSecret: true });
    expect(two.projects).toEqual([
      { id: 'acme', key_sha256: DIGEST, resources: ['species'], preview: false },
      { id: 'acme', key_sha256: 'd'.repeat(64), resources: ['species'], preview: false },
    ]);
    expect(() => addCredential(two, project('acme', { digest: 'e'.repeat(64) }), { addSecret: true })).toThrow(
      /project acme already holds 2 secrets: revoke one first \(revoke project acme --digest PREFIX/,
    );
    expect(() => addCredential(one, project('other', { digest: 'd'.repeat(64) }), { addSecret: true })).toThrow(/no project other to add a secret to/);
    const client = { kind: 'client' as const, id: 'ci', digest: 'b'.repeat(64), resources: '*' as const, preview: true };
    const clients = addCredential(addCredential({}, client), { ...client, digest: 'c'.repeat(64), preview: false }, { addSecret: true });
    expect(clients.clients.map((c) => [c.secret_sha256[0], c.preview])).toEqual([
      ['b', true],
      ['c', true],
    ]);
  });

  it('revokes one secret by the start of its digest, keeping the other of its id', () => {
    const doc = addCredential(addCredential({}, project('acme')), project('acme', { digest: `${'a'.repeat(8)}${'b'.repeat(56)}` }), { addSecret: true });
    expect(listCredentials(doc).map((r) => r.digest)).toEqual(['a'.repeat(12), `${'a'.repeat(8)}bbbb`]);
    expect(() => revokeCredential(doc, { kind: 'project', digest: 'aaaaaaaa' })).toThrow(/aaaaaaaa starts the digests of 2 secrets .*: give more digits/);
    const { doc: next, removed } = revokeCredential(doc, { kind: 'project', digest: 'aaaaaaaab' });
    expect(removed).toEqual([{ kind: 'project', id: 'acme', digest: `${'a'.repeat(8)}${'b'.repeat(56)}` }]);
    expect(next.projects.map((p) => p.key_sha256)).toEqual([DIGEST]);
    expect(() => revokeCredential(doc, { kind: 'project', id: 'other', digest: 'aaaaaaaab' })).toThrow(/no project "other" with a digest starting aaaaaaaab/);
    expect(() => revokeCredential(doc, { kind: 'token', digest: 'aaaaaaaab' })).toThrow(UsageError);
  });

  it('prints the wrangler commands that take revoked secrets out of KV', () => {
    const secret = (id: string, digest: string) => ({ kind: 'client' as const, id, digest: digest.repeat(64), resources: '*' as const, preview: false });
    const doc = addCredential(addCredential({}, secret('ci', 'b')), secret('ci', 'c'), { addSecret: true });
    const { doc: after, removed } = revokeCredential(addCredential(doc, project('acme')), { kind: 'client', digest: 'bbbbbbbb' });
    const value = JSON.stringify({ id: 'ci', secret_sha256: 'c'.repeat(64), resources: '*', preview: false });
    expect(kvRevokeCommands(removed, after, 'production')).toEqual([
      `npx wrangler kv key put "client:ci" '${value}' --binding CREDENTIALS --env production --remote`,
    ]);
    expect(kvRevokeCommands(revokeCredential(after, { kind: 'client', id: 'ci' }).removed, undefined)).toEqual([
      'npx wrangler kv key delete "client:ci" --binding CREDENTIALS --remote',
    ]);
    expect(kvRevokeCommands(revokeCredential(after, { kind: 'project', id: 'acme' }).removed, undefined)).toEqual([
      `npx wrangler kv key delete "apikey:${DIGEST}" --binding CREDENTIALS --remote`,
    ]);
  });

  it('validates the document it edits, naming the bad entry', () => {
    expect(() => addCredential({ projects: [{ id: 'x', key_sha256: 'plain', resources: '*' }] }, project('y'))).toThrow(/projects\[0\]\.key_sha256/);
  });
});

describe('the command line', () => {
  it.each([
    [['create', 'project', 'acme', '--resources', 'species,trees'], /unknown resource "trees"/],
    [['create', 'project', 'acme', '--resources', 'species,species'], /names a resource twice/],
    [['create', 'project', 'a:b'], /bad project id "a:b"/],
    [['create', 'client', 'x'.repeat(65)], /bad client id/],
    [['create', 'project', 'acme', '--preview'], /--preview does not apply to create project/],
    [['create', 'robot', 'r2'], /unknown kind "robot"/],
    [['create', 'token'], /create token needs an id/],
    [['create', 'project', 'acme', 'extra'], /unexpected argument "extra"/],
    [['create', 'project', 'acme', '--file'], /--file needs a value/],
    [['create', 'project', 'acme', '--colour', 'red'], /unknown option --colour/],
    [['list', '--resources', '*'], /--resources does not apply to list/],
    [['revoke', 'acme'], /unknown kind "acme"/],
    [['rotate'], /unknown command "rotate"/],
    [['create', 'project', 'acme', '--add-secret', '--resources', 'species'], /--resources does not apply to create project --add-secret/],
    [['list', '--add-secret'], /--add-secret does not apply to list/],
    [['revoke', 'project'], /revoke project needs an id, or --digest/],
    [['revoke', 'project', '--digest', '4db2'], /--digest takes 8 to 64 hex digits/],
    [['revoke', 'project', 'acme', '--env', 'production'], /--env does not apply to revoke/],
    [['revoke', 'project', 'acme', '--kv', 'kv.json'], /unexpected argument "kv.json"/],
    [[], /no command/],
  ])('%j is refused: %s', (argv, message) => {
    expect(() => parseArgs(argv)).toThrow(UsageError);
    expect(() => parseArgs(argv)).toThrow(message);
  });

  it('reads every option form', () => {
    expect(parseArgs(['create', 'client', 'ci', '--resources=species,genus', '--preview', '--file', 'c.json', '--kv', 'kv.json'])).toEqual({
      action: 'create',
      kind: 'client',
      id: 'ci',
      resources: ['species', 'genus'],
      preview: true,
      file: 'c.json',
      kv: 'kv.json',
    });
    expect(parseArgs(['revoke', 'token', 'ada'])).toEqual({ action: 'revoke', kind: 'token', id: 'ada' });
    expect(parseArgs(['revoke', 'project', '--digest', '4DB20630', '--kv', '--env', 'staging'])).toEqual({
      action: 'revoke',
      kind: 'project',
      digest: '4db20630',
      kv: true,
      env: 'staging',
    });
    expect(parseArgs(['create', 'client', 'ci', '--add-secret', '--file', 'c.json'])).toMatchObject({ addSecret: true, file: 'c.json' });
  });
});

/**
 * The CLI run from `cwd`: through `npm run --silent ops:credentials --`, as an operator types it, for
 * the first call of a test; the others start the script directly with npm's INIT_CWD (the same
 * program, a second less each).
 */
function credentials(cwd: string, ...argv: string[]) {
  const env = { ...process.env, CREDENTIALS_FILE: '' };
  const out = viaNpm.has(cwd)
    ? spawnSync(process.execPath, ['--import', 'tsx', 'scripts/credentials.ts', ...argv], { cwd: ROOT, encoding: 'utf8', env: { ...env, INIT_CWD: cwd } })
    : spawnSync('npm', ['--prefix', ROOT, 'run', '--silent', 'ops:credentials', '--', ...argv], { cwd, encoding: 'utf8', env });
  viaNpm.add(cwd);
  return {
    status: out.status,
    stdout: out.stdout,
    stderr: out.stderr
      .split('\n')
      .filter((l) => !l.startsWith('npm warn'))
      .join('\n'),
  };
}
const viaNpm = new Set<string>();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const gateways: GatewayProcess[] = [];
afterAll(() => Promise.all(gateways.map((g) => g.stop())));
const start = async (file: string) => {
  const gateway = await startGatewayProcess({ CREDENTIALS_FILE: file });
  gateways.push(gateway);
  return gateway;
};

describe('npm run ops:credentials, end to end', () => {
  it('creates credentials the real gateway accepts, and a revoked one is refused without a restart', async () => {
    const dir = scratchDir('credentials-cli');
    const file = join(dir, 'credentials.json');
    const key = credentials(dir, 'create', 'project', 'acme', '--resources', 'species', '--file', 'credentials.json');
    expect(key.status, key.stderr).toBe(0);
    const secret = key.stdout.trim();
    expect(secret, 'stdout is the secret alone').toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
    expect(key.stderr).toMatch(/created project acme \(species\)/);
    const client = credentials(dir, 'create', 'client', 'acme-ci', '--preview', '--file', 'credentials.json');
    const token = credentials(dir, 'create', 'token', 'ada', '--resources', 'plants', '--file', 'credentials.json');
    expect([client.status, token.status]).toEqual([0, 0]);
    const stored = readFileSync(file, 'utf8');
    for (const s of [secret, client.stdout.trim(), token.stdout.trim()]) expect(stored).not.toContain(s);
    expect(stored).toContain(await sha256Hex(secret));
    expect(readdirSync(dir), 'no temporary file left behind').toEqual(['credentials.json']);
    const listed = credentials(dir, 'list', '--file', 'credentials.json');
    expect(
      listed.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(/\s+/).slice(0, 2).join(' ')),
    ).toEqual(['project acme', 'client acme-ci', 'token ada']);

    const duplicate = credentials(dir, 'create', 'project', 'acme', '--file', 'credentials.json');
    expect(duplicate.status).toBe(2);
    expect(duplicate.stdout, 'no secret for a refused credential').toBe('');
    expect(duplicate.stderr.trim()).toBe(
      'credentials: project acme already exists: give it a second secret with --add-secret (rotation), or choose another id (see --help)',
    );

    const gateway = await start(file);
    const get = (path: string, authorization: string) => fetch(`${gateway.origin}${path}`, { headers: { Authorization: authorization } });
    expect((await get('/v2/species/ABBA', `ApiKey ${secret}`)).status).toBe(200);
    expect((await get('/v2/genus/Abies', `ApiKey ${secret}`)).status).toBe(403);
    expect((await get('/v2/plants/ABBA', `Bearer ${token.stdout.trim()}`)).status).toBe(200);
    const issued = await fetch(`${gateway.origin}/oauth/token`, {
      method: 'POST',
      headers: { Authorization: `Basic ${btoa(`acme-ci:${client.stdout.trim()}`)}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    expect(issued.status).toBe(200);
    const { access_token } = (await issued.json()) as { access_token: string };
    expect((await get('/v3/species/ABBA', `Bearer ${access_token}`)).status).toBe(200);

    const revoked = credentials(dir, 'revoke', 'project', 'acme', '--file', 'credentials.json');
    expect(revoked.status, revoked.stderr).toBe(0);
    const since = statSync(file).mtimeMs;
    while ((await get('/v2/species/ABBA', `ApiKey ${secret}`)).status === 200 && Date.now() - since < 5000) await sleep(50);
    expect((await get('/v2/species/ABBA', `ApiKey ${secret}`)).status).toBe(401);
    expect(Date.now() - since, 'refused within 2 s of the revoke').toBeLessThan(2000);
    expect((await get('/v2/plants/ABBA', `Bearer ${token.stdout.trim()}`)).status, 'other credentials survive').toBe(200);
  });

  it('rotates a key: --add-secret gives a second one, revoke --digest ends the old one on a running gateway, the new one stays', async () => {
    const dir = scratchDir('credentials-rotate');
    const file = join(dir, 'credentials.json');
    const old = credentials(dir, 'create', 'project', 'acme', '--resources', 'species', '--file', 'credentials.json');
    expect(old.status, old.stderr).toBe(0);
    const gateway = await start(file);
    const status = async (key: string) => (await fetch(`${gateway.origin}/v2/species/ABBA`, { headers: { Authorization: `ApiKey ${key}` } })).status;

    const added = credentials(dir, 'create', 'project', 'acme', '--add-secret', '--file', 'credentials.json');
    expect(added.status, added.stderr).toBe(0);
    expect(added.stderr).toMatch(/added a second secret to project acme \(species\)/);
    const [oldKey, newKey] = [old.stdout.trim(), added.stdout.trim()];
    const third = credentials(dir, 'create', 'project', 'acme', '--add-secret', '--file', 'credentials.json');
    expect([third.status, third.stdout]).toEqual([2, '']);
    expect(third.stderr).toMatch(/project acme already holds 2 secrets/);

    const rows = credentials(dir, 'list', '--file', 'credentials.json').stdout.trim().split('\n');
    const oldPrefix = (await sha256Hex(oldKey)).slice(0, 12);
    expect(rows.map((r) => r.split(/\s+/).slice(0, 3).join(' '))).toEqual([
      `project acme ${oldPrefix}`,
      `project acme ${(await sha256Hex(newKey)).slice(0, 12)}`,
    ]);
    const since = Date.now();
    while ((await status(newKey)) !== 200 && Date.now() - since < 5000) await sleep(50);
    expect([await status(oldKey), await status(newKey)], 'both keys work while callers move').toEqual([200, 200]);

    const revoked = credentials(dir, 'revoke', 'project', 'acme', '--digest', oldPrefix, '--file', 'credentials.json');
    expect(revoked.status, revoked.stderr).toBe(0);
    const changed = statSync(file).mtimeMs;
    while ((await status(oldKey)) === 200 && Date.now() - changed < 5000) await sleep(50);
    expect(Date.now() - changed, 'the old key refused within 2 s').toBeLessThan(2000);
    expect([await status(oldKey), await status(newKey)]).toEqual([401, 200]);
  });

  it('revoke --kv revokes in the file and prints the wrangler commands for KV; without a file it needs the whole digest', async () => {
    const dir = scratchDir('credentials-revoke-kv');
    const made = credentials(dir, 'create', 'client', 'edge-ci', '--file', 'credentials.json');
    expect(made.status, made.stderr).toBe(0);
    const revoked = credentials(dir, 'revoke', 'client', 'edge-ci', '--kv', '--env', 'production', '--file', 'credentials.json');
    expect(revoked.status, revoked.stderr).toBe(0);
    expect(revoked.stdout).toBe('npx wrangler kv key delete "client:edge-ci" --binding CREDENTIALS --env production --remote\n');
    expect(listCredentials(JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8')))).toEqual([]);

    const digest = await sha256Hex('some-edge-key');
    const bare = credentials(dir, 'revoke', 'project', '--digest', digest, '--kv');
    expect(bare.status, bare.stderr).toBe(0);
    expect(bare.stdout).toBe(`npx wrangler kv key delete "apikey:${digest}" --binding CREDENTIALS --remote\n`);
    const short = credentials(dir, 'revoke', 'project', '--digest', digest.slice(0, 12), '--kv');
    expect(short.status).toBe(2);
    expect(short.stderr).toMatch(/needs the whole digest/);
  });

  it('writes a KV entry for wrangler instead, in the layout of ops:kv-credentials, touching no credential file', async () => {
    const dir = scratchDir('credentials-kv');
    const made = credentials(dir, 'create', 'client', 'edge-ci', '--resources', 'species,genus', '--kv', 'kv.json');
    expect(made.status, made.stderr).toBe(0);
    const secret = made.stdout.trim();
    const digest = await sha256Hex(secret);
    const written = JSON.parse(readFileSync(join(dir, 'kv.json'), 'utf8'));
    expect(written).toEqual(kvEntries({ clients: [{ id: 'edge-ci', secret_sha256: digest, resources: ['species', 'genus'] }] }));
    expect(readdirSync(dir)).toEqual(['kv.json']);
  });

  it.each([
    [['revoke', 'project', 'acme', '--file', 'missing.json'], /missing\.json: no such credential file/],
    [['create', 'project', 'acme'], /give --file FILE or set CREDENTIALS_FILE/],
    [['create', 'project', 'acme', '--file', 'broken.json'], /broken\.json is not JSON/],
  ])('%j exits 2 with one line, writing nothing', (argv, message) => {
    const dir = scratchDir('credentials-bad');
    writeFileSync(join(dir, 'broken.json'), '{"projects": [');
    const out = credentials(dir, ...argv);
    expect(out.status).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr.trim().split('\n')).toEqual([expect.stringMatching(message)]);
    expect(existsSync(join(dir, 'c.json'))).toBe(false);
  });
});

describe('npm run ops:kv-credentials', () => {
  it('writes the bulk-put file with --out, and with --silent standard output is the JSON alone', () => {
    const dir = scratchDir('kv-out');
    const doc = { projects: [{ id: 'acme', key_sha256: DIGEST, resources: '*' }] };
    writeFileSync(join(dir, 'credentials.json'), JSON.stringify(doc));
    const run = (...args: string[]) => spawnSync('npm', ['--prefix', ROOT, 'run', ...args], { cwd: dir, encoding: 'utf8' });
    const written = run('ops:kv-credentials', '--', 'credentials.json', '--out', 'kv-credentials.json');
    expect(written.status, written.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'kv-credentials.json'), 'utf8'))).toEqual(kvEntries(doc));
    const printed = run('--silent', 'ops:kv-credentials', '--', 'credentials.json');
    expect(JSON.parse(printed.stdout)).toEqual(kvEntries(doc));
  });
});

/** The uid and gid of `nobody`/`nogroup`: a user that needs no account made for the test. */
const SERVICE = { uid: 65534, gid: 65534 };
const isRoot = process.getuid?.() === 0;

/** The CLI run directly (no npm), as `user` when given: what an operator on the gateway's machine runs. */
function credentialsAs(user: { uid: number; gid: number } | undefined, cwd: string, ...argv: string[]) {
  const out = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/credentials.ts', ...argv], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, CREDENTIALS_FILE: '', INIT_CWD: cwd },
    ...user,
  });
  return { status: out.status, stdout: out.stdout, stderr: out.stderr };
}

/** Owner, group and permission bits of `path`. */
const ownership = (path: string) => {
  const s = statSync(path);
  return { uid: s.uid, gid: s.gid, mode: (s.mode & 0o7777).toString(8) };
};

/** A scratch directory other users may enter (mkdtemp makes it 0700). */
function sharedDir(prefix: string): string {
  const dir = scratchDir(prefix);
  chmodSync(dir, 0o755);
  return dir;
}

describe.runIf(isRoot)('the credential file keeps its owner, group and mode (run as root)', () => {
  it('creates a new file 0600, and keeps the owner, group and mode of the file it replaces', () => {
    const dir = sharedDir('credentials-owner');
    const file = join(dir, 'credentials.json');
    const made = credentialsAs(undefined, dir, 'create', 'project', 'acme', '--file', 'credentials.json');
    expect(made.status, made.stderr).toBe(0);
    expect(ownership(file)).toEqual({ uid: 0, gid: 0, mode: '600' });

    for (const [uid, gid, mode] of [
      [0, SERVICE.gid, 0o640],
      [SERVICE.uid, SERVICE.gid, 0o640],
      [SERVICE.uid, 0, 0o660],
    ] as const) {
      chownSync(file, uid, gid);
      chmodSync(file, mode);
      const created = credentialsAs(undefined, dir, 'create', 'client', `ci-${uid}-${gid}`, '--file', 'credentials.json');
      expect(created.status, created.stderr).toBe(0);
      expect(ownership(file), 'after create').toEqual({ uid, gid, mode: mode.toString(8) });
      const revoked = credentialsAs(undefined, dir, 'revoke', 'client', `ci-${uid}-${gid}`, '--file', 'credentials.json');
      expect(revoked.status, revoked.stderr).toBe(0);
      expect(ownership(file), 'after revoke').toEqual({ uid, gid, mode: mode.toString(8) });
    }
    expect(readdirSync(dir), 'no temporary file left behind').toEqual(['credentials.json']);
  });

  it('refuses, changing nothing and showing no secret, when the operator cannot give the new file the old owner', () => {
    const dir = sharedDir('credentials-not-owner');
    chownSync(dir, SERVICE.uid, SERVICE.gid);
    const file = join(dir, 'credentials.json');
    writeFileSync(file, JSON.stringify({ projects: [{ id: 'acme', key_sha256: DIGEST, resources: '*' }] }));
    chmodSync(file, 0o644);
    const before = readFileSync(file, 'utf8');
    const out = credentialsAs(SERVICE, dir, 'create', 'project', 'other', '--file', 'credentials.json');
    expect(out.status).toBe(1);
    expect(out.stdout, 'no secret for a credential that was not written').toBe('');
    expect(out.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/belongs to uid 0 gid 0.*run the command as root or as the file's owner: nothing was changed/),
    ]);
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(ownership(file)).toEqual({ uid: 0, gid: 0, mode: '644' });
    expect(readdirSync(dir)).toEqual(['credentials.json']);
  });

  it('a revoke reaches a gateway running as the service user that reads the file through its group (root:group 0640)', async () => {
    const dir = sharedDir('credentials-service-user');
    const file = join(dir, 'credentials.json');
    const gone = credentialsAs(undefined, dir, 'create', 'project', 'gone', '--file', 'credentials.json');
    const kept = credentialsAs(undefined, dir, 'create', 'project', 'kept', '--file', 'credentials.json');
    expect([gone.status, kept.status], gone.stderr + kept.stderr).toEqual([0, 0]);
    chownSync(file, 0, SERVICE.gid);
    chmodSync(file, 0o640);
    const gateway = await startGatewayProcess({ CREDENTIALS_FILE: file }, undefined, SERVICE);
    gateways.push(gateway);
    const status = async (key: string) => (await fetch(`${gateway.origin}/v2/species/ABBA`, { headers: { Authorization: `ApiKey ${key}` } })).status;
    expect([await status(gone.stdout.trim()), await status(kept.stdout.trim())]).toEqual([200, 200]);

    const revoked = credentialsAs(undefined, dir, 'revoke', 'project', 'gone', '--file', 'credentials.json');
    expect(revoked.status, revoked.stderr).toBe(0);
    const since = statSync(file).mtimeMs;
    while ((await status(gone.stdout.trim())) === 200 && Date.now() - since < 5000) await sleep(50);
    expect(await status(gone.stdout.trim()), gateway.lines.slice(-3).join('\n')).toBe(401);
    expect(Date.now() - since, 'refused within 2 s of the revoke').toBeLessThan(2000);
    expect(await status(kept.stdout.trim())).toBe(200);
    expect(gateway.lines.join('\n')).not.toMatch(/credentials not reloaded/);
  });
});
