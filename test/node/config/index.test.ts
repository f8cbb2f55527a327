import { describe, expect, it } from 'vitest';
import { describeConfig, parseConfig } from '../../../src/config';
import { MemoryCredentialStore, parseCredentialDocument } from '../../../src/services/credentials/credential-store';
import { DEMO_CREDENTIALS } from '../../../src/services/credentials/demo-credentials';
import { sha256Hex } from '../../../src/core/crypto';

describe('configuration (docs/reference/operations.md)', () => {
  it('has the documented defaults', () => {
    const config = parseConfig({});
    expect(config).toMatchObject({
      port: 8787,
      upstreamUrl: undefined,
      serviceName: 'botanical',
      docsUrl: 'https://docs.botanical.example',
      trustProxy: false,
      httpsRedirectUntil: Date.parse('2026-08-31T00:00:00Z'),
      v1DeprecatedAt: Date.parse('2026-01-01T00:00:00Z'),
      v1Sunset: Date.parse('2027-07-31T00:00:00Z'),
      rateLimitPerMinute: 120,
      tokenRateLimitPerMinute: 10,
    });
  });

  it.each([
    ['PORT', 'eighty'],
    ['RATE_LIMIT_PER_MINUTE', '12.5'],
    ['RATE_LIMIT_PER_MINUTE', '0'],
    ['TOKEN_RATE_LIMIT_PER_MINUTE', '-3'],
    ['HTTPS_REDIRECT_UNTIL', 'next tuesday'],
    ['V1_SUNSET', '2027-13-45T00:00:00Z'],
    ['V1_DEPRECATED_AT', '1700000000'],
    ['UPSTREAM_URL', 'ftp://backend.example'],
    ['UPSTREAM_URL', 'not a url'],
    ['DOCS_URL', 'javascript:alert(1)'],
    ['TRUST_PROXY', 'maybe'],
    ['SERVICE_NAME', 'has spaces'],
  ])('stops on a malformed %s=%j with a message naming it', (name, value) => {
    expect(() => parseConfig({ [name]: value })).toThrow(new RegExp(`Invalid configuration: ${name} `));
  });

  it.each([
    'https://api.example.com',
    'api.example.com/v2',
    'api.example.com:8443x',
    'api.example.com:99999',
    'api.example.com:0',
    'api example.com',
    '::1',
    '*.example.com',
  ])('stops on a PUBLIC_HOSTS entry no request could name (%j), quoting it', (entry) => {
    expect(() => parseConfig({ PUBLIC_HOSTS: `api.example.com, ${entry}` })).toThrow(
      `Invalid configuration: PUBLIC_HOSTS holds ${JSON.stringify(entry.toLowerCase())}, not a host[:port]: a DNS name (punycode for other scripts), an IPv4 address or a bracketed IPv6 literal, then an optional port from 1 to 65535`,
    );
  });

  it('reads PUBLIC_HOSTS entries as a request names a host: names, addresses, IPv6 literals, ports, any letter case', () => {
    expect(
      parseConfig({ PUBLIC_HOSTS: ' API.Example.com ,api.example.com:8443,127.0.0.1:65535,[::1]:8787,[2001:db8::1],xn--bcher-kva.example., ' }).hostile
        .publicHosts,
    ).toEqual(['api.example.com', 'api.example.com:8443', '127.0.0.1:65535', '[::1]:8787', '[2001:db8::1]', 'xn--bcher-kva.example.']);
  });

  it('never prints secrets when describing itself', () => {
    const config = parseConfig({ TOKEN_SIGNING_SECRET: 'sekret-signing-value', UPSTREAM_AUTHORIZATION: 'Bearer upstream-sekret' });
    const text = JSON.stringify(describeConfig(config));
    expect(text).not.toContain('sekret');
    expect(text).toContain('"tokenSigningSecret":"[set]"');
  });
});

describe('credential store (docs/reference/access.md)', () => {
  it('holds exactly the four demo credentials, by digest', async () => {
    const store = new MemoryCredentialStore(DEMO_CREDENTIALS);
    expect(await store.apiKey(await sha256Hex('demo-project-key'))).toMatchObject({ kind: 'project', id: 'demo', access: { preview: false } });
    expect(await store.apiKey(await sha256Hex('demo-species-only-key'))).toMatchObject({ id: 'demo-limited', access: { resources: ['species'] } });
    expect(await store.personalToken(await sha256Hex('demo-personal-token'))).toMatchObject({ kind: 'member', id: 'demo-member', access: { preview: false } });
    const client = await store.client('demo-client');
    expect(client?.secretDigests).toEqual([await sha256Hex('demo-client-secret')]);
    expect(client?.principal.access.preview).toBe(true);
    expect(JSON.stringify(DEMO_CREDENTIALS)).not.toMatch(/demo-(project-key|species-only-key|client-secret|personal-token)"/);
    const counts = [DEMO_CREDENTIALS.projects, DEMO_CREDENTIALS.clients, DEMO_CREDENTIALS.personal_tokens].map((l) => l?.length);
    expect(counts).toEqual([2, 1, 1]);
  });

  it.each([
    [[], 'must be a JSON object'],
    [{ projects: {} }, 'projects must be a list'],
    [{ projects: [{ id: 'p', key_sha256: 'plaintext-key', resources: '*' }] }, 'projects[0].key_sha256'],
    [{ projects: [{ id: 'p', key_sha256: 'a'.repeat(64), resources: ['trees'] }] }, 'projects[0].resources'],
    [{ clients: [{ id: '', secret_sha256: 'a'.repeat(64), resources: '*' }] }, 'clients[0].id'],
    [{ personal_tokens: [{ member: 'm', token_sha256: 'a'.repeat(64), resources: '*', preview: 'yes' }] }, 'personal_tokens[0].preview'],
  ])('rejects a malformed document %j naming the entry', (doc, where) => {
    expect(() => parseCredentialDocument(doc)).toThrow(where);
  });
});
