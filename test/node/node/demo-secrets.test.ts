/**
 * No demo secrets off loopback (src/node/demo-secrets.ts, docs/reference/operations.md), in process: which
 * `HOST` spellings count as this machine only, and what start-up and the check are told (the
 * refusal naming the setting, or the warning when `DEMO_CREDENTIALS=allow`) for each secret that
 * is missing or too weak. Start-up's own refusal is tested on a process in node-startup.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { randomSecret } from '../../../src/assemble-services';
import { ConfigError } from '../../../src/config';
import { demoSecretsBeyondLoopback, isLoopbackHost } from '../../../src/node/demo-secrets';

const STRONG = 'a'.repeat(32);

/** The settings the check reads, with a credential file and a strong secret unless given. */
const settings = (over: Partial<Parameters<typeof demoSecretsBeyondLoopback>[0]> = {}) => ({
  host: '0.0.0.0',
  credentialsFile: '/etc/botanical/credentials.json',
  tokenSigningSecret: STRONG,
  demoCredentials: false,
  ...over,
});

/** The refusal's message, or a failure when there is none. */
function refusal(config: Parameters<typeof demoSecretsBeyondLoopback>[0]): string {
  try {
    demoSecretsBeyondLoopback(config);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error(`${JSON.stringify(config)} was allowed`);
}

describe('isLoopbackHost', () => {
  it.each([
    '127.0.0.1',
    '127.0.0.2',
    '127.255.255.254',
    '::1',
    '[::1]',
    '0:0:0:0:0:0:0:1',
    '::ffff:127.0.0.1',
    '[::ffff:7f00:1]',
    'localhost',
    'LOCALHOST',
    'LocalHost',
  ])('%s reaches this machine only', (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });

  // Brackets only around the whole host: `[::]1` and `1[27.0.0.1]` are not loopback addresses with a stray bracket.
  it.each([
    '0.0.0.0',
    '::',
    '[::]',
    '10.0.0.1',
    '126.255.255.255',
    '128.0.0.1',
    '::2',
    '::ffff:10.0.0.1',
    'example.com',
    'localhost.',
    '127.1',
    '',
    '[::]1',
    '1[27.0.0.1]',
  ])('%s may be reached from elsewhere', (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });
});

describe('demo secrets beyond loopback', () => {
  it('are never a concern on loopback, whatever is missing', () => {
    for (const host of ['127.0.0.1', '::1', 'localhost']) {
      expect(demoSecretsBeyondLoopback(settings({ host, credentialsFile: undefined, tokenSigningSecret: undefined }))).toBeUndefined();
    }
  });

  it('pass off loopback with a credential file and a signing secret of 32 bytes', () => {
    expect(demoSecretsBeyondLoopback(settings())).toBeUndefined();
    // Bytes, not characters: 16 two-byte characters are 32 bytes.
    expect(demoSecretsBeyondLoopback(settings({ tokenSigningSecret: 'é'.repeat(16) }))).toBeUndefined();
  });

  it('stop start-up without CREDENTIALS_FILE, naming it', () => {
    expect(refusal(settings({ credentialsFile: undefined }))).toBe(
      'Invalid configuration: CREDENTIALS_FILE is not set, so the demo credentials the README publishes would be served, and HOST=0.0.0.0 is reachable from other machines: set CREDENTIALS_FILE, listen on 127.0.0.1, or set DEMO_CREDENTIALS=allow for a demonstration',
    );
  });

  it('stop start-up without a signing secret, or with one under 32 bytes, naming TOKEN_SIGNING_SECRET', () => {
    expect(refusal(settings({ host: '::', tokenSigningSecret: undefined }))).toBe(
      'Invalid configuration: TOKEN_SIGNING_SECRET is not set, so tokens would be signed with a random per-process secret (broken at every restart and between instances), and HOST=:: is reachable from other machines: set TOKEN_SIGNING_SECRET, listen on 127.0.0.1, or set DEMO_CREDENTIALS=allow for a demonstration',
    );
    expect(refusal(settings({ tokenSigningSecret: 'a'.repeat(31) }))).toBe(
      'Invalid configuration: TOKEN_SIGNING_SECRET is 31 bytes, fewer than 32 (whoever guesses it can sign tokens), and HOST=0.0.0.0 is reachable from other machines: set TOKEN_SIGNING_SECRET, listen on 127.0.0.1, or set DEMO_CREDENTIALS=allow for a demonstration',
    );
    expect(refusal(settings({ tokenSigningSecret: '' }))).toMatch(/^Invalid configuration: TOKEN_SIGNING_SECRET is not set/);
  });

  it('name the credential file first and both settings when both are missing, with how to make a secret', () => {
    expect(refusal(settings({ host: '192.0.2.10', credentialsFile: undefined, tokenSigningSecret: undefined }))).toBe(
      'Invalid configuration: CREDENTIALS_FILE is not set, so the demo credentials the README publishes would be served, and HOST=192.0.2.10 is reachable from other machines: set CREDENTIALS_FILE and TOKEN_SIGNING_SECRET (a 32-byte secret: openssl rand -base64 32), listen on 127.0.0.1, or set DEMO_CREDENTIALS=allow for a demonstration',
    );
  });

  it('with DEMO_CREDENTIALS=allow are served, with the warning to log at every start', () => {
    expect(demoSecretsBeyondLoopback(settings({ credentialsFile: undefined, tokenSigningSecret: undefined, demoCredentials: true }))).toBe(
      'DEMO_CREDENTIALS=allow: listening on 0.0.0.0 with demo secrets (CREDENTIALS_FILE and TOKEN_SIGNING_SECRET): anyone who can reach it can use them.',
    );
    expect(demoSecretsBeyondLoopback(settings({ tokenSigningSecret: 'short', demoCredentials: true }))).toBe(
      'DEMO_CREDENTIALS=allow: listening on 0.0.0.0 with demo secrets (TOKEN_SIGNING_SECRET): anyone who can reach it can use them.',
    );
    // Nothing to allow: no warning.
    expect(demoSecretsBeyondLoopback(settings({ demoCredentials: true }))).toBeUndefined();
  });
});

describe('the signing secret drawn when none is set', () => {
  it('is 32 random bytes in hex, a new one each time', () => {
    const drawn = new Set(Array.from({ length: 8 }, () => randomSecret()));
    expect(drawn.size).toBe(8);
    for (const secret of drawn) expect(secret).toMatch(/^[0-9a-f]{64}$/);
  });
});
