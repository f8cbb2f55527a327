import { describe, expect, it } from 'vitest';
import { json, testApp } from '../../../support/harness';

/**
 * A query credential whose name is percent-encoded (`%6Bey` is `key`) is the same parameter to
 * the gateway: it authenticates, and it is kept out of links and logs exactly like `key=`.
 */
describe('a percent-encoded credential name', () => {
  const secret = 'demo-project-key';

  it.each([
    ['/v1/species?%6Bey=demo-project-key&q=oak&page=2', '/v1/species?%6Bey=[redacted]&q=oak&page=2'],
    ['/api/v1/species?q=oak&%74oken=demo-personal-token', '/api/v1/species?q=oak&%74oken=[redacted]'],
    ['/v1/species?q=oak&%6B%65%79=demo-project-key', '/v1/species?q=oak&%6B%65%79=[redacted]'],
  ])('%s: served, and absent from links and the log line', async (path, logged) => {
    const t = testApp();
    const res = await t.get(path, {});
    const text = await res.clone().text();
    expect(res.status, text).toBe(200);
    const body = await json(res);
    expect(Object.keys(body.links).length).toBeGreaterThan(1);
    for (const link of Object.values<string>(body.links)) {
      expect(link).not.toMatch(/demo-project-key|demo-personal-token|%6B|%74/i);
      expect(link).toMatch(/q=oak/);
    }
    expect(t.logs).toHaveLength(1);
    expect(t.logs[0]!.path).toBe(logged);
    expect(JSON.stringify(t.logs)).not.toContain(secret);
    expect(JSON.stringify(t.logs)).not.toContain('demo-personal-token');
    expect(t.logs[0]!.credential).toBe('v1:query');
  });

  it('is refused by v2 like a plain `key`, and still redacted', async () => {
    const t = testApp();
    const res = await t.get('/v2/species?%6Bey=demo-project-key', {});
    expect(res.status).toBe(401);
    expect(await res.text()).not.toContain(secret);
    expect(t.logs[0]!.path).toBe('/v2/species?%6Bey=[redacted]');
  });
});
