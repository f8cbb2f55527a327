/**
 * `GET /readyz` over backends that answer as the test says: 200 only when every backend that
 * answers callers is ready, each one's report under its own name, the request's id passed on,
 * and nothing asked while the process stops (docs/reference/operations.md). The backends themselves are
 * tested in `upstream-readiness.test.ts` and `legacy-readiness.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import type { ConfigVars } from '../../../src/config';
import type { LegacyBackend } from '../../../src/migration/legacy-backend';
import { stoppableLifecycle } from '../../../src/services/lifecycle';
import type { Readiness, RecordSource } from '../../../src/services/record-source';
import { json } from '../../suites/client';
import { diskApp, diskSource } from '../../support/gateway';

const LEGACY = { LEGACY_V1_URL: 'http://127.0.0.1:9/api/v1', LEGACY_V1_AUTHORIZATION: 'Bearer legacy' };

/** A backend whose readiness is `readiness`, noting the request id of each question. */
function backend(readiness: Readiness) {
  const asked: string[] = [];
  return { asked, ready: async (ctx: { requestId: string }) => (asked.push(ctx.requestId), readiness) };
}

function gateway(options: { env?: ConfigVars; source?: Readiness; legacy?: Readiness | 'no check' }) {
  const source = options.source && backend(options.source);
  const legacy = options.legacy && options.legacy !== 'no check' ? backend(options.legacy) : undefined;
  const lifecycle = stoppableLifecycle();
  const services = {
    // The dataset on disk, with the readiness the test gives.
    source: source ? (Object.assign(Object.create(diskSource()), { ready: source.ready }) as RecordSource) : diskSource(),
    lifecycle,
    ...(options.legacy === undefined
      ? {}
      : { legacy: { get: () => Promise.reject(new Error('not asked here')), ...(legacy && { ready: legacy.ready }) } as LegacyBackend }),
  };
  const t = diskApp({ env: options.env, services });
  const readyz = async () => {
    const res = await t.get('/readyz', {});
    return { status: res.status, cacheControl: res.headers.get('Cache-Control'), requestId: res.headers.get('Svc-Request-Id'), body: await json(res) };
  };
  return { readyz, lifecycle, sourceAsked: source?.asked ?? [], legacyAsked: legacy?.asked ?? [] };
}

const up = (name: string): Readiness => ({ ready: true, report: { [name]: { reachable: true } } });
const down = (name: string): Readiness => ({ ready: false, report: { [name]: { reachable: false } } });

describe('GET /readyz over its backends', () => {
  it('reports an in-process source as ready in bundled mode', async () => {
    expect(await gateway({}).readyz()).toMatchObject({ status: 200, cacheControl: 'no-store', body: { status: 'ready', mode: 'bundled' } });
  });

  it('answers 503 unavailable, not to be stored, when the source is not ready, with its report', async () => {
    const g = gateway({ source: { ready: false, report: { mode: 'upstream', upstream: { reachable: false } } } });
    expect(await g.readyz()).toMatchObject({
      status: 503,
      cacheControl: 'no-store',
      body: { status: 'unavailable', mode: 'upstream', upstream: { reachable: false } },
    });
  });

  it('asks the source under the request id of the /readyz request', async () => {
    const g = gateway({ source: up('upstream') });
    const r = await g.readyz();
    expect(r.requestId).toBeTruthy();
    expect(g.sourceAsked).toEqual([r.requestId]);
  });

  it.each([
    ['both ready', up, up, 200, 'ready'],
    ['the source not ready', down, up, 503, 'unavailable'],
    ['the legacy backend not ready', up, down, 503, 'unavailable'],
    ['neither ready', down, down, 503, 'unavailable'],
  ] as const)('with V1_ANSWER=legacy and %s: both backends asked, both reports', async (_name, source, legacy, status, word) => {
    const g = gateway({ env: { ...LEGACY, V1_ANSWER: 'legacy' }, source: source('upstream'), legacy: legacy('legacy') });
    const r = await g.readyz();
    expect(r.status).toBe(status);
    expect(r.body).toEqual({ status: word, upstream: { reachable: source === up }, legacy: { reachable: legacy === up } });
    expect(g.sourceAsked).toEqual([r.requestId]);
    expect(g.legacyAsked).toEqual([r.requestId]);
  });

  it('does not ask the legacy backend while the facade answers v1', async () => {
    const g = gateway({ env: { ...LEGACY, V1_COMPARE_PERCENT: '100' }, source: up('upstream'), legacy: down('legacy') });
    expect(await g.readyz()).toMatchObject({ status: 200, body: { status: 'ready', upstream: { reachable: true } } });
    expect(g.legacyAsked).toEqual([]);
  });

  it('counts only the source when the legacy backend has no check', async () => {
    const g = gateway({ env: { ...LEGACY, V1_ANSWER: 'legacy' }, source: up('upstream'), legacy: 'no check' });
    expect(await g.readyz()).toMatchObject({ status: 200, body: { status: 'ready', upstream: { reachable: true } } });
  });

  it('answers 503 stopping, not to be stored, without asking a backend, once the process stops', async () => {
    const g = gateway({ env: { ...LEGACY, V1_ANSWER: 'legacy' }, source: up('upstream'), legacy: up('legacy') });
    expect((await g.readyz()).status).toBe(200);
    g.lifecycle.stop();
    expect(await g.readyz()).toMatchObject({ status: 503, cacheControl: 'no-store', body: { status: 'stopping' } });
    expect(g.sourceAsked).toHaveLength(1);
    expect(g.legacyAsked).toHaveLength(1);
  });
});
