import { env } from 'cloudflare:workers';
import { describe, expect, inject, it } from 'vitest';
import { systemClock } from '../../src/services/clock';
import type { ListQuery } from '../../src/services/record-source';
import { collectionPath } from '../../src/services/upstream/upstream-source';
import { buildGateway, edgeResponseCache } from '../../src/worker/gateway';
import { json } from '../suites/client';
import { gatewayClient } from './client';

const upstreamMode = () => gatewayClient(buildGateway({ ...env, UPSTREAM_URL: inject('upstreamUrl'), UPSTREAM_AUTHORIZATION: 'ApiKey demo-project-key' }));
const keyOf = (q: string) => collectionPath('species', { q, order: [], page: 1 } satisfies ListQuery, undefined);

describe('upstream mode on Workers: a real backend on loopback, cached in the Cache API', () => {
  it('answers from the backend and keeps the answer in caches.default', async () => {
    const res = await upstreamMode().get('/v2/species?q=abies');
    const body = await json(res);
    expect(res.status, JSON.stringify(body).slice(0, 300)).toBe(200);
    expect(body.meta.total).toBeGreaterThan(0);
    const cached = await edgeResponseCache(systemClock).get(keyOf('abies'));
    expect(cached, 'no Cache API entry for the upstream page').toBeDefined();
    expect(JSON.parse(cached!.body).data.map((r: any) => r.id)).toEqual(body.data.map((r: any) => r.id));
  });

  it('serves a fresh Cache API entry without asking the backend, from any gateway (isolate)', async () => {
    // An answer the backend would never give for this query: only the cache can supply it.
    const real = await edgeResponseCache(systemClock).get(keyOf('abies'));
    expect(real).toBeDefined();
    await edgeResponseCache(systemClock).set(keyOf('only-in-the-edge-cache'), real!);
    const body = await json(await upstreamMode().get('/v2/species?q=only-in-the-edge-cache'));
    expect(body.meta.total).toBe(JSON.parse(real!.body).meta.total);
    expect(body.links.self).toBe('/v2/species?q=only-in-the-edge-cache&page=1');
    const direct = await json(await upstreamMode().get('/v2/species?q=only-in-the-edge-cache-not-stored'));
    expect(direct.meta.total).toBe(0);
  });
});
