import { describe, expect, it } from 'vitest';
import type { CachedResponse } from '../../src/services/cache/response-cache';
import { systemClock } from '../../src/services/clock';
import { edgeResponseCache } from '../../src/worker/gateway';

const cache = () => edgeResponseCache(systemClock);
const entry = (status: number, body: string, freshMs: number, staleMs: number): CachedResponse => {
  const now = Date.now();
  return { status, body, freshUntil: now + freshMs, staleUntil: now + staleMs };
};

describe('CacheApiResponseCache over caches.default', () => {
  it('misses on a key never stored', async () => {
    expect(await cache().get('/v2/species?page=99')).toBeUndefined();
  });

  it('gives back exactly what was stored, status and instants included', async () => {
    const stored = entry(404, '{"type":"x","status":404,"name":"Ü ×"}', 30_000, 300_000);
    await cache().set('/v2/species/NOPE', stored);
    expect(await cache().get('/v2/species/NOPE')).toEqual(stored);
  });

  it('keeps keys apart, including their query strings', async () => {
    await cache().set('/v2/species?q=abies&page=1', entry(200, '"abies"', 30_000, 60_000));
    await cache().set('/v2/species?q=pinus&page=1', entry(200, '"pinus"', 30_000, 60_000));
    expect((await cache().get('/v2/species?q=abies&page=1'))?.body).toBe('"abies"');
    expect((await cache().get('/v2/species?q=pinus&page=1'))?.body).toBe('"pinus"');
    expect(await cache().get('/v2/species?q=abies')).toBeUndefined();
  });

  it('does not store an entry whose stale window has already ended', async () => {
    await cache().set('/v2/genus', entry(200, '[]', -2_000, -1_000));
    expect(await cache().get('/v2/genus')).toBeUndefined();
  });

  it('lets the Cache API drop an entry when its stale window ends', async () => {
    await cache().set('/v2/families', entry(200, '[]', 500, 1_000));
    expect(await cache().get('/v2/families')).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    expect(await cache().get('/v2/families')).toBeUndefined();
  });
});
