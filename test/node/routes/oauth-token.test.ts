import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/core/crypto';
import { MemoryCredentialStore } from '../../../src/services/credentials/credential-store';
import { DEMO_CREDENTIALS } from '../../../src/services/credentials/demo-credentials';
import type { Services } from '../../../src/env';
import { noMetrics } from '../../../src/services/metrics';
import { oauthSuite } from '../../suites/oauth.suite';
import { basic, postToken } from '../../suites/tokens';
import { json } from '../../suites/client';
import { diskApp } from '../../support/gateway';

oauthSuite(() => diskApp());

const body = (id: string, secret: string) => `grant_type=client_credentials&client_id=${id}&client_secret=${secret}`;

async function twoClientApp(limit: number, services: Partial<Services> = {}) {
  const credentials = new MemoryCredentialStore({
    ...DEMO_CREDENTIALS,
    clients: [...DEMO_CREDENTIALS.clients!, { id: 'second-client', secret_sha256: await sha256Hex('second secret: with + and %'), resources: ['species'] }],
  });
  return diskApp({ env: { TOKEN_RATE_LIMIT_PER_MINUTE: String(limit) }, now: '2026-11-21T12:00:10Z', services: { credentials, ...services } });
}

describe('POST /oauth/token: per-client rate limit (TOKEN_RATE_LIMIT_PER_MINUTE)', () => {
  it('throttles the 4th token of a minute with 429 slow_down and Retry-After, then recovers in the next window', async () => {
    const refusals: string[] = [];
    const t = await twoClientApp(3, { metrics: { ...noMetrics, refused: (kind) => refusals.push(kind) } });
    for (let i = 1; i <= 3; i++) {
      const res = await postToken(t, body('demo-client', 'demo-client-secret'));
      expect(res.status, await res.clone().text()).toBe(200);
      expect(res.headers.get('RateLimit-Policy')).toBe('"token";q=3;w=60');
      expect(res.headers.get('RateLimit')).toBe(`"token";r=${3 - i};t=50`);
    }
    t.clock.advance(5_000);
    const refused = await postToken(t, body('demo-client', 'demo-client-secret'));
    const problem = await json(refused);
    expect(refused.status, JSON.stringify(problem)).toBe(429);
    expect(problem.error).toBe('slow_down');
    expect(problem.error_description).toBe('More than 3 token requests this minute; cache the token until it nears expiry.');
    expect(problem.access_token).toBeUndefined();
    // Counted in the metrics as a token rate-limit refusal.
    expect(refusals).toEqual(['token_rate_limit']);
    expect(refused.headers.get('Retry-After')).toBe('45');
    expect(refused.headers.get('RateLimit')).toBe('"token";r=0;t=45');

    // Another client has its own bucket, and Basic with form-encoded reserved characters works.
    const other = await postToken(t, 'grant_type=client_credentials', {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: basic('second-client', 'second secret: with + and %'),
    });
    expect(other.status, await other.text()).toBe(200);

    t.clock.set('2026-11-21T12:01:00Z');
    const again = await postToken(t, body('demo-client', 'demo-client-secret'));
    expect(again.status, await again.text()).toBe(200);
    expect(again.headers.get('RateLimit')).toBe('"token";r=2;t=60');
  });

  it('counts only authenticated requests, so guessing cannot spend a client’s budget', async () => {
    const t = await twoClientApp(2);
    for (let i = 0; i < 5; i++) expect((await postToken(t, body('demo-client', 'guess'))).status).toBe(401);
    expect((await postToken(t, body('demo-client', 'demo-client-secret'))).status).toBe(200);
  });

  it('does not count token requests against the API bucket of the same client', async () => {
    const t = diskApp({ env: { RATE_LIMIT_PER_MINUTE: '1' } });
    const token = (await json(await postToken(t, body('demo-client', 'demo-client-secret')))).access_token;
    const read = await t.get('/v2/species', { Authorization: `Bearer ${token}` });
    expect(read.status, await read.text()).toBe(200);
  });
});

describe('POST /oauth/token: the log line', () => {
  it('names the client and how it authenticated, never the secret', async () => {
    const t = diskApp();
    await postToken(t, body('demo-client', 'demo-client-secret'));
    await postToken(t, 'grant_type=client_credentials', {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: basic('demo-client', 'demo-client-secret'),
    });
    await postToken(t, body('demo-client', 'wrong-secret'));
    expect(t.logs.map((l) => [l.status, l.subject, l.credential])).toEqual([
      [200, 'client:demo-client', 'oauth:body'],
      [200, 'client:demo-client', 'oauth:basic'],
      [401, null, null],
    ]);
    expect(JSON.stringify(t.logs)).not.toMatch(/demo-client-secret|wrong-secret/);
  });
});
