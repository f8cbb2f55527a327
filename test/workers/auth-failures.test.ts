/**
 * Failed-authentication throttling at the edge: the source address is `CF-Connecting-IP`, and
 * the counts live in the RATE_LIMITER Durable Objects, so every isolate sees the same ones.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { buildGateway } from '../../src/worker/gateway';
import { AUTH_FAILURE_LIMIT, authFailureSuite } from '../suites/auth-failures.suite';
import { DEMO } from '../suites/client';
import { gatewayClient } from './client';

const limited = (mode: 'local' | 'exact') =>
  gatewayClient(buildGateway({ ...env, AUTH_FAILURES_PER_MINUTE: String(AUTH_FAILURE_LIMIT), RATE_LIMIT_MODE: mode }));

for (const mode of ['local', 'exact'] as const) {
  describe(`RATE_LIMIT_MODE=${mode}`, () => {
    authFailureSuite(() => {
      const gateway = limited(mode);
      return { client: () => gateway, from: (address) => ({ 'CF-Connecting-IP': address }) };
    });
  });
}

async function awayFromMinuteEdge(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 3_000) await new Promise((resolve) => setTimeout(resolve, left + 100));
}

describe('failed authentication across isolates', () => {
  it('local: each isolate refuses past the limit it knows of; once both have heard from the object, both refuse', async () => {
    await awayFromMinuteEdge();
    const isolates = [limited('local'), limited('local')];
    const from = { 'CF-Connecting-IP': `192.0.2.${1 + Math.floor(Math.random() * 250)}` };
    const statuses = [];
    for (let i = 0; i < 4 * AUTH_FAILURE_LIMIT; i++)
      statuses.push((await isolates[i % 2]!.get('/v2/species', { ...from, Authorization: `ApiKey guess-${i}` })).status);
    // The documented bound: the limit per isolate at most.
    const counted = statuses.filter((s) => s === 401).length;
    expect(counted, statuses.join()).toBeGreaterThanOrEqual(AUTH_FAILURE_LIMIT);
    expect(counted, statuses.join()).toBeLessThanOrEqual(2 * AUTH_FAILURE_LIMIT);
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (const isolate of isolates) expect((await isolate.get('/v2/species', { ...from, Authorization: DEMO.key })).status).toBe(429);
  });

  it('exact: counts one address in one Durable Object, whichever isolate the attempts land in', async () => {
    await awayFromMinuteEdge();
    const isolates = [limited('exact'), limited('exact')];
    const from = { 'CF-Connecting-IP': `192.0.2.${1 + Math.floor(Math.random() * 250)}` };
    const statuses = [];
    for (let i = 0; i <= AUTH_FAILURE_LIMIT; i++)
      statuses.push((await isolates[i % 2]!.get('/v2/species', { ...from, Authorization: `ApiKey guess-${i}` })).status);
    expect(statuses).toEqual([...Array(AUTH_FAILURE_LIMIT).fill(401), 429]);
    expect((await isolates[1]!.get('/v2/species', { ...from, Authorization: DEMO.key })).status).toBe(429);
  });
});
