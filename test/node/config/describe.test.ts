import { describe, expect, it } from 'vitest';
import { configWarnings, describeConfig, parseConfig } from '../../../src/config';
import { MemoryCredentialStore, parseCredentialDocument } from '../../../src/services/credentials/credential-store';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

describe('dates in configuration are RFC 3339 with an explicit offset (docs/reference/operations.md)', () => {
  it.each([
    ['V1_SUNSET', '2027-02-30T00:00:00Z', /not a real date/],
    ['V1_SUNSET', '2027-07-31T00:00:00', /with an offset.*no offset/],
    ['V1_SUNSET', '2027-07-31', /with an offset/],
    ['V1_SUNSET', '2027-07-31T24:00:00Z', /not a real date/],
    ['V1_SUNSET', '2027-07-31T00:00:00+25:00', /not a real date/],
    ['V1_DEPRECATED_AT', '2026-02-29T00:00:00Z', /not a real date/],
    ['HTTPS_REDIRECT_UNTIL', '2026-08-31 00:00:00Z', /with an offset/],
    ['HTTPS_REDIRECT_UNTIL', 'Mon, 31 Aug 2026 00:00:00 GMT', /with an offset/],
  ])('%s=%s stops start-up naming the variable', (name, value, why) => {
    expect(() => parseConfig({ [name]: value })).toThrow(new RegExp(`^Invalid configuration: ${name} `));
    expect(() => parseConfig({ [name]: value })).toThrow(why);
  });

  it.each([
    ['2027-07-31T00:00:00Z', '2027-07-31T00:00:00.000Z'],
    ['2027-07-31T02:00:00+02:00', '2027-07-31T00:00:00.000Z'],
    ['2027-07-30T19:30:00-04:30', '2027-07-31T00:00:00.000Z'],
    ['2027-07-31t00:00:00.250z', '2027-07-31T00:00:00.250Z'],
    ['2028-02-29T12:00:00Z', '2028-02-29T12:00:00.000Z'],
  ])("reads %s as %s whatever the machine's time zone", (value, instant) => {
    expect(new Date(parseConfig({ V1_SUNSET: value }).v1Sunset).toISOString()).toBe(instant);
  });

  it('refuses a sunset before the deprecation, naming V1_SUNSET', () => {
    expect(() => parseConfig({ V1_DEPRECATED_AT: '2027-01-01T00:00:00Z', V1_SUNSET: '2026-12-31T23:59:59Z' })).toThrow(
      /^Invalid configuration: V1_SUNSET is before V1_DEPRECATED_AT/,
    );
    expect(parseConfig({ V1_DEPRECATED_AT: '2027-01-01T00:00:00Z', V1_SUNSET: '2027-01-01T00:00:00Z' }).v1Sunset).toBe(Date.parse('2027-01-01T00:00:00Z'));
  });

  it('starts after the sunset with a warning line (v1 then answers 410)', () => {
    const config = parseConfig({ V1_SUNSET: '2027-07-31T00:00:00Z', HTTPS_REDIRECT_UNTIL: '2028-01-01T00:00:00Z' });
    expect(configWarnings(config, Date.parse('2027-07-30T23:59:59Z'))).toEqual([]);
    const [warning, ...more] = configWarnings(config, Date.parse('2027-07-31T00:00:00Z'));
    expect(more).toEqual([]);
    expect(warning).toMatch(/^V1_SUNSET \(2027-07-31T00:00:00.000Z\) has passed: every v1 request is answered 410/);
  });

  it('warns when an HTTPS_REDIRECT_UNTIL the operator set has passed; the passed default, as the specification intends, does not', () => {
    const byDefault = parseConfig({});
    expect(configWarnings(byDefault, Date.parse('2026-11-28T00:00:00Z'))).toEqual([]);
    const set = parseConfig({ HTTPS_REDIRECT_UNTIL: '2026-10-01T00:00:00Z' });
    expect(configWarnings(set, Date.parse('2026-09-30T23:59:59Z'))).toEqual([]);
    const [warning, ...more] = configWarnings(set, Date.parse('2026-10-01T00:00:00Z'));
    expect(more).toEqual([]);
    expect(warning).toMatch(/^HTTPS_REDIRECT_UNTIL \(2026-10-01T00:00:00.000Z\) has passed: plain HTTP is refused with 426/);
  });

  it('listens on loopback by default, and takes DEMO_CREDENTIALS=allow or nothing', () => {
    expect(parseConfig({}).host).toBe('127.0.0.1');
    expect(parseConfig({}).demoCredentials).toBe(false);
    expect(parseConfig({ DEMO_CREDENTIALS: 'allow' }).demoCredentials).toBe(true);
    expect(() => parseConfig({ DEMO_CREDENTIALS: 'yes' })).toThrow(/^Invalid configuration: DEMO_CREDENTIALS must be allow, or unset \(got "yes"\)$/);
  });

  it('warns of a TOKEN_SIGNING_SECRET shorter than 32 bytes, never printing it', () => {
    const at = Date.parse('2026-01-01T00:00:00Z');
    const [warning, ...more] = configWarnings(parseConfig({ TOKEN_SIGNING_SECRET: 'abc' }), at);
    expect(more).toEqual([]);
    expect(warning).toMatch(/^TOKEN_SIGNING_SECRET is 3 bytes: a secret shorter than 32 bytes/);
    expect(warning).not.toContain('abc');
    expect(configWarnings(parseConfig({ TOKEN_SIGNING_SECRET: 'k'.repeat(32) }), at)).toEqual([]);
    // Bytes, not characters: 16 two-byte characters are 32 bytes.
    expect(configWarnings(parseConfig({ TOKEN_SIGNING_SECRET: 'é'.repeat(16) }), at)).toEqual([]);
  });

  it('describes the configuration for Workers without the settings only Node reads', () => {
    const config = parseConfig({ CREDENTIALS_FILE: '/etc/gateway/credentials.json', REDIS_URL: 'redis://127.0.0.1:6379' });
    const node = describeConfig(config);
    expect(node).toMatchObject({ port: 8787, host: '127.0.0.1', shutdown: { delayMs: 0, timeoutMs: 30_000 }, hostile: { maxConnections: 10_000 } });
    const workers = describeConfig(config, 'workers');
    for (const name of ['port', 'host', 'credentialsFile', 'redisUrl', 'shutdown']) expect(workers, name).not.toHaveProperty(name);
    expect(Object.keys(workers.hostile as object).sort()).toEqual(['authFailuresPerMinute', 'publicHosts']);
    expect(workers).toMatchObject({ serviceName: 'botanical', rateLimitPerMinute: 120 });
  });
});

describe('SHUTDOWN_DELAY_MS and SHUTDOWN_TIMEOUT_MS', () => {
  it('default to 0 and 30000 and take whole milliseconds', () => {
    expect(parseConfig({}).shutdown).toEqual({ delayMs: 0, timeoutMs: 30_000 });
    expect(parseConfig({ SHUTDOWN_DELAY_MS: '5000', SHUTDOWN_TIMEOUT_MS: '0' }).shutdown).toEqual({ delayMs: 5000, timeoutMs: 0 });
  });

  it.each([
    ['SHUTDOWN_DELAY_MS', '5s'],
    ['SHUTDOWN_TIMEOUT_MS', '-1'],
    ['SHUTDOWN_TIMEOUT_MS', '1.5'],
  ])('%s=%s stops start-up naming it', (name, value) => {
    expect(() => parseConfig({ [name]: value })).toThrow(new RegExp(`^Invalid configuration: ${name} must be a whole number`));
  });
});

describe('PORT and UPSTREAM_URL', () => {
  it.each(['70000', '65536', '-1', '80.5'])('PORT=%s stops start-up naming PORT', (port) => {
    expect(() => parseConfig({ PORT: port })).toThrow(/^Invalid configuration: PORT must be a whole number from 0 to 65535/);
  });

  it('accepts the whole port range', () => {
    expect(parseConfig({ PORT: '65535' }).port).toBe(65535);
    expect(parseConfig({ PORT: '0' }).port).toBe(0);
  });

  it.each([
    ['http://backend.internal/v2', 'http://backend.internal'],
    ['http://backend.internal/v2/', 'http://backend.internal'],
    ['http://backend.internal/v1', 'http://backend.internal'],
    ['https://backend.internal:8443/v3', 'https://backend.internal:8443'],
    ['http://backend.internal/api/v1', 'http://backend.internal'],
    ['http://backend.internal/botanical/V2/', 'http://backend.internal/botanical'],
    ['http://user:secret-pass@backend.internal/v2', 'http://user:PASSWORD@backend.internal'],
  ])('UPSTREAM_URL=%s is refused with the corrected value %s', (value, corrected) => {
    expect(() => parseConfig({ UPSTREAM_URL: value })).toThrow(
      `Invalid configuration: UPSTREAM_URL must be the backend's base URL without a version segment (the gateway adds /v2): set UPSTREAM_URL=${corrected}`,
    );
    expect(() => parseConfig({ UPSTREAM_URL: value })).not.toThrow(/secret-pass/);
  });

  it.each([
    'http://backend.internal',
    'http://backend.internal/',
    'http://backend.internal/v2x',
    'http://backend.internal/botanical',
    'http://backend.internal/v2/base',
  ])('UPSTREAM_URL=%s is a base', (value) => {
    expect(parseConfig({ UPSTREAM_URL: value }).upstreamUrl).toBe(value.replace(/\/+$/, ''));
  });
});

describe('the credential file (docs/reference/operations.md)', () => {
  it.each([
    [{}, /^credential document: holds no credentials/],
    [{ projects: [], clients: [], personal_tokens: [] }, /holds no credentials/],
    [{ project: [{ id: 'acme', key_sha256: A, resources: '*' }] }, /unknown key "project": the lists are projects, clients, personal_tokens/],
    [{ projects: [{ id: 'acme', key_sha256: A, resources: '*' }], tokens: [] }, /unknown key "tokens"/],
    [
      {
        projects: [
          { id: 'old', key_sha256: A, resources: '*' },
          { id: 'new', key_sha256: A, resources: ['species'] },
        ],
      },
      /projects\[1\] \("new"\) has the same digest as projects\[0\] \("old"\)/,
    ],
    [
      { projects: [{ id: 'acme', key_sha256: A, resources: '*' }], personal_tokens: [{ member: 'ada', token_sha256: A, resources: '*' }] },
      /personal_tokens\[0\] \("ada"\) has the same digest as projects\[0\] \("acme"\)/,
    ],
    [
      {
        clients: [
          { id: 'ci', secret_sha256: A, resources: '*' },
          { id: 'ci', secret_sha256: B, resources: ['species'] },
        ],
      },
      /clients\[1\] \("ci"\) grants other access than clients\[0\] \("ci"\)/,
    ],
  ])('%j stops start-up naming the entry', (doc, message) => {
    expect(() => parseCredentialDocument(doc)).toThrow(message);
  });

  it.each<[string, unknown, string]>([
    ['not an object', null, 'must be a JSON object'],
    ['a string', 'projects', 'must be a JSON object'],
    ['an entry that is null', { projects: [null] }, 'projects[0] must be an object'],
    ['an entry that is a string', { personal_tokens: ['ada'] }, 'personal_tokens[0] must be an object'],
    ['an id given as a list', { projects: [{ id: ['acme'], key_sha256: A, resources: '*' }] }, 'projects[0].id must be a non-empty string'],
    ['a digest given as a list', { projects: [{ id: 'acme', key_sha256: [A], resources: '*' }] }, 'projects[0].key_sha256 must be a SHA-256 hex digest'],
    [
      'a digest in upper case',
      { clients: [{ id: 'ci', secret_sha256: A.toUpperCase(), resources: '*' }] },
      'clients[0].secret_sha256 must be a SHA-256 hex digest',
    ],
    [
      'a digest and one character more',
      { projects: [{ id: 'acme', key_sha256: `${A}0`, resources: '*' }] },
      'projects[0].key_sha256 must be a SHA-256 hex digest',
    ],
    [
      'a digest after another character',
      { projects: [{ id: 'acme', key_sha256: `x${A}`, resources: '*' }] },
      'projects[0].key_sha256 must be a SHA-256 hex digest',
    ],
    [
      'a digest a character short',
      { projects: [{ id: 'acme', key_sha256: A.slice(1), resources: '*' }] },
      'projects[0].key_sha256 must be a SHA-256 hex digest',
    ],
    [
      'one resource family not in a list',
      { projects: [{ id: 'acme', key_sha256: A, resources: 'species' }] },
      'projects[0].resources must be "*" or a list of species, genus, families, plants',
    ],
    [
      'a list with one unknown family',
      { projects: [{ id: 'acme', key_sha256: A, resources: ['species', 'trees'] }] },
      'projects[0].resources must be "*" or a list of species, genus, families, plants',
    ],
    ['preview as text', { clients: [{ id: 'ci', secret_sha256: A, resources: '*', preview: 'yes' }] }, 'clients[0].preview must be a boolean'],
    [
      'a personal token without its member',
      { personal_tokens: [{ member: '', token_sha256: A, resources: '*' }] },
      'personal_tokens[0].member must be a non-empty string',
    ],
    [
      "a personal token's digest that is not one",
      { personal_tokens: [{ member: 'ada', token_sha256: 'ada-token', resources: '*' }] },
      'personal_tokens[0].token_sha256 must be a SHA-256 hex digest',
    ],
    ['no credential at all', {}, 'holds no credentials: add an entry to projects, clients, personal_tokens'],
    [
      'a client secret that is also a project key',
      { projects: [{ id: 'acme', key_sha256: A, resources: '*' }], clients: [{ id: 'ci', secret_sha256: A, resources: '*' }] },
      'clients[0] ("ci") has the same digest as projects[0] ("acme"): remove one of them',
    ],
    [
      'two secrets of one client, one with preview',
      {
        clients: [
          { id: 'ci', secret_sha256: A, resources: ['species'] },
          { id: 'ci', secret_sha256: B, resources: ['species'], preview: true },
        ],
      },
      'clients[1] ("ci") grants other access than clients[0] ("ci"): the secrets of one client grant the same access',
    ],
  ])('refuses %s, saying in full what is wrong where', (_name, doc, message) => {
    expect(() => parseCredentialDocument(doc)).toThrow(new Error(`credential document: ${message}`));
  });

  it('compares two secrets of a client holding "*" without reordering the list of families that later messages name', () => {
    parseCredentialDocument({
      clients: [
        { id: 'ci', secret_sha256: A, resources: '*' },
        { id: 'ci', secret_sha256: B, resources: ['species', 'genus', 'families', 'plants'] },
      ],
    });
    expect(() => parseCredentialDocument({ projects: [{ id: 'acme', key_sha256: A, resources: 'species' }] })).toThrow(
      'projects[0].resources must be "*" or a list of species, genus, families, plants',
    );
  });

  it('takes two secrets of one client as the same access when they list it differently: another order, or "*" and every family', () => {
    const rotated = (first: unknown, second: unknown) =>
      parseCredentialDocument({
        clients: [
          { id: 'ci', secret_sha256: A, resources: first, preview: false },
          { id: 'ci', secret_sha256: B, resources: second },
        ],
      });
    expect(rotated(['species', 'genus'], ['genus', 'species']).clients).toHaveLength(2);
    expect(rotated('*', ['plants', 'families', 'genus', 'species']).clients).toHaveLength(2);
  });

  it("accepts an empty document where one is allowed (an editor's new file, the last credential revoked)", () => {
    expect(parseCredentialDocument({}, { allowEmpty: true })).toEqual({ projects: [], clients: [], personal_tokens: [] });
  });

  it('counts what the store holds, per kind', () => {
    const doc = parseCredentialDocument({
      projects: [
        { id: 'acme', key_sha256: A, resources: '*' },
        { id: 'acme', key_sha256: B, resources: '*' },
      ],
      clients: [{ id: 'ci', secret_sha256: 'c'.repeat(64), resources: ['species'] }],
    });
    expect(new MemoryCredentialStore(doc).counts()).toEqual({ projects: 2, clients: 1, personal_tokens: 0 });
    expect(new MemoryCredentialStore({ projects: [{ id: 'acme', key_sha256: A, resources: '*' }] }).counts(), 'a document without the other lists').toEqual({
      projects: 1,
      clients: 0,
      personal_tokens: 0,
    });
  });
});

describe('REDIS_URL', () => {
  it.each(['http://cache.internal:6379', 'cache.internal:6379', 'redis//cache'])('%s stops start-up naming the variable, without echoing it', (value) => {
    expect(() => parseConfig({ REDIS_URL: value })).toThrow(/^Invalid configuration: REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL$/);
  });

  it('is kept as given, and its password is masked where the configuration is printed', () => {
    const config = parseConfig({ REDIS_URL: 'rediss://:s3cret@cache.internal:6380/0' });
    expect(config.redisUrl).toBe('rediss://:s3cret@cache.internal:6380/0');
    expect(JSON.stringify(describeConfig(config))).not.toContain('s3cret');
  });
});
