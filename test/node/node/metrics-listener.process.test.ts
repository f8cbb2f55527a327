/**
 * The metrics listener of the Node entry (docs/reference/observability.md): its own port, never the API's,
 * none unless `METRICS_PORT` is set, and Node's own refusals counted there.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../../src/config';
import { type GatewayProcess, startGatewayProcess } from '../../../tools/processes';

const started: GatewayProcess[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((g) => g.stop()));
});

async function gateway(env: Record<string, string>) {
  const g = await startGatewayProcess({ TOKEN_SIGNING_SECRET: 'x', ...env });
  started.push(g);
  const line = JSON.parse(g.lines.find((l) => l.includes('gateway listening'))!) as { metrics: { host: string; port: number } | null };
  return { ...g, metrics: line.metrics };
}

describe('configuration', () => {
  it('refuses METRICS_PORT equal to PORT, and one that is not a port', () => {
    expect(() => parseConfig({ PORT: '9000', METRICS_PORT: '9000' })).toThrow(
      new ConfigError('METRICS_PORT', 'must differ from PORT (9000): metrics are never served on the API port'),
    );
    expect(() => parseConfig({ METRICS_PORT: 'metrics' })).toThrow(/METRICS_PORT must be a whole number from 0 to 65535/);
    expect(parseConfig({}).metrics).toEqual({ port: undefined, host: '127.0.0.1' });
    expect(parseConfig({ METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' }).metrics).toEqual({ port: 9464, host: '0.0.0.0' });
  });
});

describe('the Node entry', () => {
  it('opens no metrics listener without METRICS_PORT, and the API port has no /metrics', async () => {
    const g = await gateway({});
    expect(g.metrics).toBeNull();
    expect((await fetch(`${g.origin}/metrics`)).status).toBe(404);
  });

  it('listens on METRICS_HOST, loopback by default', async () => {
    const g = await gateway({ METRICS_PORT: '0' });
    expect(g.metrics!.host).toBe('127.0.0.1');
    expect(g.metrics!.port).not.toBe(Number(new URL(g.origin).port));
    const res = await fetch(`http://127.0.0.1:${g.metrics!.port}/metrics`);
    expect(res.status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${g.metrics!.port}/other`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${g.metrics!.port}/metrics`, { method: 'POST' })).status).toBe(405);
  });

  it('counts connections closed at MAX_CONNECTIONS, and requests refused by the HTTP layer by status', async () => {
    const g = await gateway({ METRICS_PORT: '0', MAX_CONNECTIONS: '1' });
    const { port } = new URL(g.origin);
    const open = (): Promise<Socket> =>
      new Promise((resolve, reject) => {
        const s = connect(Number(port), '127.0.0.1', () => resolve(s));
        // Read to the end, or 'close' never comes.
        s.resume();
        s.on('error', reject);
      });
    const held = await open();
    const dropped = await open();
    await new Promise((resolve) => dropped.on('close', resolve));
    held.end('GET /v2/species HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n');
    await new Promise((resolve) => held.on('close', resolve));
    const text = await (await fetch(`http://127.0.0.1:${g.metrics!.port}/metrics`)).text();
    expect(text).toContain('\ngateway_connections_refused_total 1\n');
    expect(text).toContain('\ngateway_http_rejections_total{status="400"} 1\n');
  });
});
