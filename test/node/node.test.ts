/**
 * The Node entry's `main` and `run` (src/node.ts) in process, where they end without listening:
 * `--check` (`npm run check`) validates the configuration, the credential file and the dataset,
 * prints the start-up summary and exits 0; `run` turns a bad setting or a refused credential file
 * into one line naming it and exit 1, never a stack; `--help` and an unknown argument end before
 * anything is read. `process.exit`, `console.log` and `console.error` are spies, the environment is
 * stubbed per test. Serving (a listener, signals) is tested on processes in node-server.test.ts
 * and node-startup.test.ts.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main, run } from '../../src/node';
import { scratchDir } from '../support/scratch';

class Exited extends Error {
  constructor(readonly code: number | string | null | undefined) {
    super(`exit ${code}`);
  }
}

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

/** The settings the entry reads, as a fresh environment would have them, with `env` over them. */
function environment(env: Record<string, string | undefined>): void {
  const unset = [
    'CREDENTIALS_FILE',
    'TOKEN_SIGNING_SECRET',
    'UPSTREAM_URL',
    'REDIS_URL',
    'METRICS_PORT',
    'OTEL_EXPORTER_OTLP_ENDPOINT',
    'DEMO_CREDENTIALS',
    'PORT',
  ];
  for (const name of unset) vi.stubEnv(name, undefined);
  vi.stubEnv('HOST', '127.0.0.1');
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
}

/** Runs `start` until it exits; what it printed to stdout and stderr, and the exit code. */
async function ended(start: () => Promise<void>): Promise<{ code: unknown; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void out.push(args.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void err.push(args.join(' ')));
  vi.spyOn(process, 'exit').mockImplementation((code) => {
    throw new Exited(code);
  });
  try {
    await start();
  } catch (e) {
    if (e instanceof Exited) return { code: e.code, out, err };
    throw e;
  }
  throw new Error('it returned without exiting');
}

const lines = (out: string[]) => out.map((l) => JSON.parse(l) as Record<string, any>);

describe('npm run check, in process', () => {
  it('passes on loopback with the demo credentials, warns about them, and prints the summary', async () => {
    environment({});
    const { code, out, err } = await ended(() => main(['--check']));
    expect(err).toEqual([]);
    expect(code).toBe(0);
    const printed = lines(out);
    const messages = printed.map((l) => l.message);
    expect(messages).toContain('CREDENTIALS_FILE is not set: serving with the bundled demo credentials.');
    expect(messages).toContain('TOKEN_SIGNING_SECRET is not set: tokens are signed with a random per-process secret.');
    const summary = printed.at(-1)!;
    expect(summary).toMatchObject({
      level: 'info',
      message: 'check passed: the gateway would start (not listening)',
      host: '127.0.0.1',
      port: 8787,
      mode: 'bundled',
      credentials: { source: 'demo', projects: 2, clients: 1, personal_tokens: 1 },
      metrics: null,
    });
    expect(summary.records.species).toBeGreaterThan(1000);
    expect(typeof summary.startup_ms).toBe('number');
  });

  it('reads the credential file and counts it, without the demo warning', async () => {
    const file = join(scratchDir('node-main'), 'credentials.json');
    writeFileSync(file, JSON.stringify({ projects: [{ id: 'acme', key_sha256: 'a'.repeat(64), resources: '*' }] }));
    environment({ CREDENTIALS_FILE: file, TOKEN_SIGNING_SECRET: 's'.repeat(32) });
    const { code, out } = await ended(() => main(['--check']));
    expect(code).toBe(0);
    const printed = lines(out);
    expect(printed.some((l) => /demo credentials|TOKEN_SIGNING_SECRET/.test(l.message))).toBe(false);
    expect(printed.at(-1)?.credentials).toEqual({ source: 'CREDENTIALS_FILE', projects: 1, clients: 0, personal_tokens: 0 });
  });

  it('fails on HOST that is not this machine’s, naming HOST', async () => {
    environment({ HOST: '192.0.2.1', CREDENTIALS_FILE: undefined, DEMO_CREDENTIALS: 'allow' });
    const { code, err, out } = await ended(() => run(['--check']));
    expect(code).toBe(1);
    expect(err).toEqual([
      'Invalid configuration: HOST "192.0.2.1" is not an address of this machine (listening on 192.0.2.1:8787 failed): use 0.0.0.0, 127.0.0.1 or one of its addresses',
    ]);
    // Demo secrets allowed off loopback: warned about at every start.
    expect(lines(out).some((l) => l.level === 'warn' && String(l.message).startsWith('DEMO_CREDENTIALS=allow: listening on 192.0.2.1'))).toBe(true);
  });
});

describe('run', () => {
  it('stops with one line naming the setting, exit 1, for a bad value', async () => {
    environment({ PORT: 'eighty' });
    const { code, err } = await ended(() => run([]));
    expect(code).toBe(1);
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(/^Invalid configuration: PORT /);
  });

  it('stops with one line, exit 1, for demo secrets beyond loopback', async () => {
    environment({ HOST: '0.0.0.0' });
    const { code, err } = await ended(() => run(['--check']));
    expect(code).toBe(1);
    expect(err).toEqual([expect.stringMatching(/^Invalid configuration: CREDENTIALS_FILE is not set, .* HOST=0\.0\.0\.0 is reachable from other machines/)]);
  });

  it('stops with one line, exit 1, for a credential file that does not validate', async () => {
    const file = join(scratchDir('node-main'), 'credentials.json');
    writeFileSync(file, JSON.stringify({ projects: [] }));
    environment({ CREDENTIALS_FILE: file });
    const { code, err } = await ended(() => run(['--check']));
    expect(code).toBe(1);
    expect(err).toEqual([
      expect.stringMatching(/^Invalid configuration: CREDENTIALS_FILE \(.*credentials\.json\) could not be loaded: credential document: holds no credentials/),
    ]);
  });

  it('answers --help and refuses an unknown argument before reading anything', async () => {
    environment({ PORT: 'eighty' });
    expect((await ended(() => run(['--help']))).code).toBe(0);
    const unknown = await ended(() => run(['--listen']));
    expect(unknown.code).toBe(2);
    expect(unknown.err).toEqual(['"--listen" is not an option: the gateway takes only --check (validate and print the start-up summary without listening)']);
  });
});
