/**
 * The policy list with a stand-in legacy version: whatever a policy refuses is rendered through
 * the version walker (the caller's error shape and version headers), which is how v1 gets its
 * `{"statusCode", "message"}` 426 and 429 without any policy knowing about v1.
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { coreRoutes } from '../../../src/routes/resources';
import type { AppEnv } from '../../../src/env';
import { renderError } from '../../../src/policies/render-error';
import { policies } from '../../../src/policies';
import { behindPolicies } from '../../../src/policies/policy';
import { ApiError } from '../../../src/core/api-error';
import type { Version } from '../../../src/versions/version';
import { AFTER_CUTOFF, BEFORE_CUTOFF } from '../../suites/transport.suite';
import { DEMO, json, testApp } from '../../support/harness';

const legacy: Version = {
  name: 'legacy',
  bases: ['/legacy'],
  changes: [
    {
      name: 'legacy-errors',
      description: 'Errors as statusCode and message.',
      error: (e) => ({ contentType: 'application/json', body: { statusCode: e.status, message: e.detail ?? e.title } }),
    },
    { name: 'legacy-headers', description: 'Every response says the version is deprecated.', headers: (h) => h.set('Deprecation', '@1767225600') },
  ],
};

function legacyApp(now: string, env: Record<string, string> = {}) {
  const { config, services } = testApp({ now, env });
  const routes = new Hono<AppEnv>();
  routes.route('/legacy', coreRoutes(services));
  const app = behindPolicies(routes, policies(config, services, [legacy]), (c) => renderError(new ApiError('svc/notFound'), c, { config, services }));
  app.onError((err, c) => renderError(err, c, { config, services }));
  return app;
}

describe('policy errors render in the caller’s version', () => {
  it('426 over plain HTTP: legacy body, Upgrade and the version headers', async () => {
    const res = await legacyApp(AFTER_CUTOFF).request('http://api.example.com/legacy/species', { headers: { Authorization: DEMO.key } });
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(426);
    expect(body).toEqual({ statusCode: 426, message: expect.stringContaining('https://api.example.com/legacy/species') });
    expect(res.headers.get('Upgrade')).toBe('TLS/1.2, HTTP/1.1');
    expect(res.headers.get('Deprecation')).toBe('@1767225600');
  });

  it('the redirect before the cut-off carries the version headers too', async () => {
    const res = await legacyApp(BEFORE_CUTOFF).request('http://api.example.com/legacy/species?page=2');
    expect(res.status).toBe(301);
    expect(res.headers.get('Location')).toBe('https://api.example.com/legacy/species?page=2');
    expect(res.headers.get('Deprecation')).toBe('@1767225600');
  });

  it('429 over the limit: legacy body with Retry-After and the counts', async () => {
    const app = legacyApp(AFTER_CUTOFF, { RATE_LIMIT_PER_MINUTE: '1' });
    const init = { headers: { Authorization: DEMO.key } };
    expect((await app.request('https://api.example.com/legacy/species', init)).status).toBe(200);
    const res = await app.request('https://api.example.com/legacy/species', init);
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(429);
    expect(body).toEqual({ statusCode: 429, message: expect.any(String) });
    expect(res.headers.get('Retry-After')).toMatch(/^\d+$/);
    expect(res.headers.get('RateLimit')).toMatch(/^"default";r=0;t=\d+$/);
    expect(res.headers.get('Deprecation')).toBe('@1767225600');
  });
});
