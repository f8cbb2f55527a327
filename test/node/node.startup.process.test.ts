import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/core/crypto';
import { scratchDir } from '../support/scratch';
import { FROM_SOURCES, gatewayListening, type Started, startProcess } from '../../tools/processes';

const running: Started<unknown>[] = [];
afterAll(() => Promise.all(running.map((p) => p.stop())));

/** `src/node.ts` as a real process: resolves when it listens or exits (`code`), with its lines so far. */
async function start(env: Record<string, string>, args: string[] = []) {
  const started = await startProcess({
    command: process.execPath,
    args: [...FROM_SOURCES.slice(1), ...args],
    env: { PORT: '0', HOST: '127.0.0.1', ...env },
    ready: gatewayListening,
    earlyExit: 'resolve',
  });
  running.push(started);
  return { listening: started.ready, code: started.exit?.code, stdout: started.stdout, stderr: started.stderr };
}
type Outcome = Awaited<ReturnType<typeof start>>;

/** Start-up refused: exit 1 and exactly one line on stderr, naming the variable, no stack. */
function expectRefused(started: Outcome, variable: string, text: RegExp) {
  expect(started.listening, started.stdout.join('\n')).toBeUndefined();
  expect(started.code).toBe(1);
  expect(started.stderr, started.stderr.join('\n')).toHaveLength(1);
  expect(started.stderr[0]).toMatch(new RegExp(`^Invalid configuration: ${variable} `));
  expect(started.stderr[0]).toMatch(text);
}

const status = (host: string, port: number, path = '/healthz') =>
  fetch(`http://${host}:${port}${path}`, { headers: { Authorization: 'ApiKey demo-project-key' } }).then(
    (res) => res.status,
    (err: Error & { cause?: { code?: string } }) => err.cause?.code ?? err.message,
  );

const listen = (host: string): Promise<Server> =>
  new Promise((resolve) => {
    const server = createServer();
    server.listen(0, host, () => resolve(server));
  });

describe('the Node entry at start-up (docs/reference/operations.md)', () => {
  it('listens on HOST only', async () => {
    // Any address of 127/8 is this machine's loopback: HOST=127.0.0.2 must not answer on 127.0.0.1.
    const { listening } = await start({ HOST: '127.0.0.2' });
    expect(listening?.host).toBe('127.0.0.2');
    expect(await status('127.0.0.2', listening!.port)).toBe(200);
    expect(await status('127.0.0.1', listening!.port)).toBe('ECONNREFUSED');
  });

  it('a port in use is one line naming PORT, exit 1, no stack', async () => {
    const taken = await listen('127.0.0.1');
    const port = (taken.address() as { port: number }).port;
    try {
      expectRefused(await start({ PORT: String(port) }), 'PORT', new RegExp(`${port} is already in use on 127\\.0\\.0\\.1`));
    } finally {
      taken.close();
    }
  });

  it.each([
    [{ PORT: '70000' }, 'PORT', /from 0 to 65535/],
    [{ HOST: '192.0.2.1', DEMO_CREDENTIALS: 'allow' }, 'HOST', /not an address of this machine/],
    // The other date rules are the same parser (test/node/config/describe.test.ts).
    [{ V1_SUNSET: '2027-07-31T00:00:00' }, 'V1_SUNSET', /with an offset/],
    [{ UPSTREAM_URL: 'http://127.0.0.1:9/v2' }, 'UPSTREAM_URL', /set UPSTREAM_URL=http:\/\/127\.0\.0\.1:9$/],
  ])('%j is refused in one line naming %s', async (env, variable, text) => {
    expectRefused(await start(env), variable, text);
  });

  it('listens on 127.0.0.1 when HOST is not set', async () => {
    const { listening } = await start({ HOST: '' });
    expect(listening?.host).toBe('127.0.0.1');
  });

  describe('no demo secrets beyond loopback (docs/reference/operations.md)', () => {
    const SECRET = 'k'.repeat(32);
    const credentialsFile = async () => {
      const file = join(scratchDir('creds'), 'credentials.json');
      writeFileSync(file, JSON.stringify({ projects: [{ id: 'acme', key_sha256: await sha256Hex('acme-key'), resources: '*' }] }));
      return file;
    };

    it.each(['0.0.0.0', '::'])('HOST=%s without CREDENTIALS_FILE is refused in one line, at start and by the check', async (host) => {
      const env = { HOST: host, TOKEN_SIGNING_SECRET: SECRET };
      expectRefused(
        await start(env),
        'CREDENTIALS_FILE',
        /is not set, so the demo credentials .* would be served, and HOST=.* is reachable from other machines/,
      );
      expectRefused(await start(env, ['--check']), 'CREDENTIALS_FILE', /DEMO_CREDENTIALS=allow/);
    });

    it('HOST=0.0.0.0 without a 32-byte TOKEN_SIGNING_SECRET is refused in one line naming it, never printing it', async () => {
      const file = await credentialsFile();
      expectRefused(
        await start({ HOST: '0.0.0.0', CREDENTIALS_FILE: file }),
        'TOKEN_SIGNING_SECRET',
        /is not set, so tokens would be signed with a random per-process secret/,
      );
      const short = await start({ HOST: '0.0.0.0', CREDENTIALS_FILE: file, TOKEN_SIGNING_SECRET: 'short-secret' });
      expectRefused(short, 'TOKEN_SIGNING_SECRET', /is 12 bytes, fewer than 32/);
      expect(short.stderr.join('\n')).not.toContain('short-secret');
    });

    it('HOST=0.0.0.0 with both starts without a word about demo secrets; DEMO_CREDENTIALS=allow starts with one warning', async () => {
      const own = await start({ HOST: '0.0.0.0', CREDENTIALS_FILE: await credentialsFile(), TOKEN_SIGNING_SECRET: SECRET });
      expect(own.listening?.credentials).toMatchObject({ source: 'CREDENTIALS_FILE' });
      expect(
        own.stdout.map((l) => JSON.parse(l)).filter((l) => l.level === 'warn'),
        own.stdout.join('\n'),
      ).toEqual([]);
      const demo = await start({ HOST: '0.0.0.0', DEMO_CREDENTIALS: 'allow' });
      expect(demo.listening?.credentials).toMatchObject({ source: 'demo' });
      const warnings = demo.stdout.map((l) => JSON.parse(l)).filter((l) => l.level === 'warn' && /DEMO_CREDENTIALS=allow/.test(l.message));
      expect(warnings, demo.stdout.join('\n')).toHaveLength(1);
      expect(await status('127.0.0.1', demo.listening!.port)).toBe(200);
    });
  });

  it('the check refuses a HOST that start-up could not listen on, in one line', async () => {
    expectRefused(await start({ HOST: '999.1.1.1', DEMO_CREDENTIALS: 'allow' }, ['--check']), 'HOST', /"999\.1\.1\.1" is not an address of this machine/);
    expectRefused(await start({ HOST: '192.0.2.1', DEMO_CREDENTIALS: 'allow' }, ['--check']), 'HOST', /not an address of this machine/);
  });

  it('a credential file with a misspelt list is refused naming the file and the key', async () => {
    const file = join(scratchDir('creds'), 'credentials.json');
    writeFileSync(file, JSON.stringify({ project: [{ id: 'acme', key_sha256: await sha256Hex('acme-key'), resources: '*' }] }));
    expectRefused(await start({ CREDENTIALS_FILE: file }), 'CREDENTIALS_FILE', /unknown key "project"/);
  });

  it('the start-up line says how many projects, clients and personal tokens the store holds', async () => {
    const demo = await start({});
    expect(demo.listening?.credentials).toEqual({ source: 'demo', projects: 2, clients: 1, personal_tokens: 1 });
    const file = join(scratchDir('creds'), 'credentials.json');
    writeFileSync(
      file,
      JSON.stringify({
        projects: [
          { id: 'acme', key_sha256: await sha256Hex('acme-key-1'), resources: '*' },
          { id: 'acme', key_sha256: await sha256Hex('acme-key-2'), resources: '*' },
          { id: 'zeta', key_sha256: await sha256Hex('zeta-key'), resources: ['species'] },
        ],
        personal_tokens: [{ member: 'ada', token_sha256: await sha256Hex('ada-token'), resources: '*' }],
      }),
    );
    const own = await start({ CREDENTIALS_FILE: file });
    expect(own.listening?.credentials).toEqual({ source: 'CREDENTIALS_FILE', projects: 3, clients: 0, personal_tokens: 1 });
  });

  it('a sunset already past starts with a warning naming V1_SUNSET, and v1 answers 410', async () => {
    const { listening, stdout } = await start({ V1_DEPRECATED_AT: '2024-01-01T00:00:00Z', V1_SUNSET: '2025-01-01T00:00:00+01:00' });
    const warning = stdout.map((l) => JSON.parse(l)).find((l) => l.level === 'warn' && l.message.startsWith('V1_SUNSET'));
    expect(warning?.message).toMatch(/V1_SUNSET \(2024-12-31T23:00:00.000Z\) has passed/);
    expect(await status('127.0.0.1', listening!.port, '/v1/species')).toBe(410);
    expect(await status('127.0.0.1', listening!.port, '/v2/species')).toBe(200);
  });
});
