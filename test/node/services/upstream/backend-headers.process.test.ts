/**
 * Backends receive exactly the documented headers (docs/reference/operations.md): real gateway processes
 * (the Node entry, with the HTTP client it wires) call real loopback backends, which record the
 * header names each request arrives with; the set must equal the table of docs/upstream.md, the
 * rows for Workers only left out. Nothing the HTTP client adds by default may slip in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayProcess, type GatewayProcess } from '../../../../tools/processes';
import { DEMO } from '../../../support/harness';
import { LEGACY_AUTHORIZATION, legacyV1, type LegacyV1 } from '../../../support/legacy-v1';
import { documentedBackendHeaders, fakePage, fakeUpstream, pageOf, sendJson, type FakeUpstream } from '../../../support/upstream';

/** The header names the table of docs/upstream.md lists for Node. */
const DOCUMENTED_ON_NODE = documentedBackendHeaders();

let upstream: FakeUpstream;
let legacy: LegacyV1;
const gateways: GatewayProcess[] = [];
beforeAll(async () => {
  upstream = await fakeUpstream((req, res) => sendJson(res, fakePage(pageOf(req))));
  legacy = await legacyV1();
  // Its first answer loads its dataset (seconds): not within the gateway's deadline.
  await fetch(`${legacy.url}/species/ABAL3`, { headers: { Authorization: LEGACY_AUTHORIZATION } });
});
afterAll(async () => {
  await Promise.all(gateways.map((g) => g.stop()));
  await Promise.all([upstream?.close(), legacy?.close()]);
});

const start = async (env: Record<string, string>) => {
  const gateway = await startGatewayProcess({ CREDENTIALS_FILE: '', ...env });
  gateways.push(gateway);
  return gateway;
};

describe('the headers a backend receives from the Node gateway', () => {
  it('lists what the table names: the gateway’s own and those HTTP/1.1 needs', () => {
    expect(DOCUMENTED_ON_NODE).toEqual(['accept', 'authorization', 'connection', 'host', 'svc-request-id', 'traceparent', 'user-agent']);
  });

  it('the upstream (UPSTREAM_URL) gets exactly the documented headers, whatever the caller sent', async () => {
    const gateway = await start({ UPSTREAM_URL: upstream.url, UPSTREAM_AUTHORIZATION: 'ApiKey gateway-own' });
    const from = upstream.seen.length;
    const res = await fetch(`${gateway.origin}/v2/species?q=headers`, {
      headers: { Authorization: DEMO.key, 'Accept-Language': 'de', 'Accept-Encoding': 'br', Cookie: 'a=b', 'Sec-Fetch-Mode': 'navigate' },
    });
    expect(res.status, await res.text()).toBe(200);
    const seen = upstream.seen.slice(from);
    expect(seen.length).toBeGreaterThan(0);
    for (const call of seen) {
      expect(Object.keys(call.headers).sort(), JSON.stringify(call.headers)).toEqual(DOCUMENTED_ON_NODE);
      expect(call.headers).toMatchObject({
        accept: 'application/json',
        'user-agent': 'botanical-gateway',
        authorization: 'ApiKey gateway-own',
        connection: 'keep-alive',
      });
      expect(call.headers.host).toBe(new URL(upstream.url).host);
    }
  });

  it('the legacy v1 backend (LEGACY_V1_URL, V1_ANSWER=legacy) gets exactly the documented headers', async () => {
    const gateway = await start({ LEGACY_V1_URL: legacy.url, LEGACY_V1_AUTHORIZATION: LEGACY_AUTHORIZATION, V1_ANSWER: 'legacy' });
    const from = legacy.seen.length;
    const res = await fetch(`${gateway.origin}/v1/species/ABAL3`, { headers: { Authorization: DEMO.key, 'Accept-Language': 'de' } });
    expect(res.status, await res.text()).toBe(200);
    const seen = legacy.seen.slice(from);
    expect(seen.length).toBeGreaterThan(0);
    for (const call of seen) {
      expect(Object.keys(call.headers).sort(), JSON.stringify(call.headers)).toEqual(DOCUMENTED_ON_NODE);
      expect(call.headers).toMatchObject({ authorization: LEGACY_AUTHORIZATION, 'user-agent': 'botanical-gateway' });
    }
  });
});
