/** GET /readyz while the legacy backend answers v1 (docs/reference/operations.md), and while the process stops. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stoppableLifecycle } from '../../../src/services/lifecycle';
import { json, testApp } from '../../support/harness';
import { legacyV1, type LegacyV1 } from '../../support/legacy-v1';
import { migrationApp } from '../../support/migration';
import { closedPort } from '../../support/upstream';

let legacy: LegacyV1;
beforeAll(async () => {
  legacy = await legacyV1();
});
afterAll(() => legacy.close());

async function readyz(app: { get: ReturnType<typeof testApp>['get'] }) {
  const res = await app.get('/readyz', {});
  return { status: res.status, body: await json(res) };
}

describe('GET /readyz with V1_ANSWER=legacy', () => {
  it('is ready when the legacy backend answers with the gateway credential, and says so', async () => {
    const r = await readyz(migrationApp(legacy, { V1_ANSWER: 'legacy' }));
    expect(r, JSON.stringify(r.body)).toMatchObject({
      status: 200,
      body: { status: 'ready', mode: 'bundled', legacy: { reachable: true, breaker: 'closed' } },
    });
  });

  it('asks the legacy backend under the request id of the /readyz request', async () => {
    const app = migrationApp(legacy, { V1_ANSWER: 'legacy' });
    const before = legacy.seen.length;
    const res = await app.get('/readyz', {});
    expect(res.status, await res.clone().text()).toBe(200);
    const asked = legacy.seen.slice(before);
    expect(asked.length).toBeGreaterThan(0);
    const id = res.headers.get('Svc-Request-Id');
    expect(id).toBeTruthy();
    for (const seen of asked) expect(seen.headers['svc-request-id']).toBe(id);
  });

  it('is 503 naming the legacy backend when it refuses the gateway credential (401)', async () => {
    const app = migrationApp(legacy, { V1_ANSWER: 'legacy', LEGACY_V1_AUTHORIZATION: 'Bearer not-the-one' });
    const r = await readyz(app);
    expect(r, JSON.stringify(r.body)).toMatchObject({
      status: 503,
      body: { status: 'unavailable', legacy: { reachable: false, problem: 'upstream/unavailable' } },
    });
    // The log names the variable to fix.
    expect(app.logs.some((l) => /refused the gateway's own credential \(401\): check LEGACY_V1_AUTHORIZATION/.test(String(l.message)))).toBe(true);
  });

  it('is 503 naming the legacy backend when it cannot be reached', async () => {
    const app = migrationApp({ ...legacy, url: `${await closedPort()}/api/v1` }, { V1_ANSWER: 'legacy' });
    const r = await readyz(app);
    expect(r, JSON.stringify(r.body)).toMatchObject({ status: 503, body: { status: 'unavailable', legacy: { reachable: false } } });
  });

  it('does not ask the legacy backend while the facade answers v1 (comparisons alone fail no caller)', async () => {
    const before = legacy.seen.length;
    const app = migrationApp(legacy, { V1_COMPARE_PERCENT: '100', LEGACY_V1_AUTHORIZATION: 'Bearer not-the-one' });
    const r = await readyz(app);
    expect(r).toMatchObject({ status: 200, body: { status: 'ready', mode: 'bundled' } });
    expect(r.body).not.toHaveProperty('legacy');
    expect(legacy.seen.length).toBe(before);
  });
});

describe('GET /readyz while stopping', () => {
  it('answers 503 from the moment the lifecycle stops, without asking a backend', async () => {
    const lifecycle = stoppableLifecycle();
    const app = testApp({ services: { lifecycle } });
    expect((await readyz(app)).status).toBe(200);
    lifecycle.stop();
    expect(await readyz(app)).toEqual({ status: 503, body: { status: 'stopping' } });
    // Only readiness changes: the requests still arriving are served.
    expect((await app.get('/healthz', {})).status).toBe(200);
  });
});
