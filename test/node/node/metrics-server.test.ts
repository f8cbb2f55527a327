/**
 * The metrics listener in process (src/node/metrics-listener.ts, metrics-server.ts and the gauges of
 * prometheus-gauges.ts; docs/reference/observability.md and docs/reference/operations.md): none without `METRICS_PORT`; with it, `GET`
 * and `HEAD /metrics` on a listener of its own, 404 elsewhere, 405 for other methods, 500 naming
 * the failure when collecting fails, one line naming `METRICS_PORT` when the port cannot be opened,
 * and what a scrape shows of the build, the start and the credential file's reloads (a refused
 * reload turns `gateway_credentials_last_reload_successful` to 0 without anyone reading the logs).
 */
import { createServer as createNetServer } from 'node:net';
import type { AddressInfo, Server as NetServer } from 'node:net';
import type { Server } from 'node:http';
import { join } from 'node:path';
import * as promClient from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../../scripts/credentials/files';
import { ConfigError, parseConfig } from '../../../src/config';
import { sha256Hex } from '../../../src/core/crypto';
import { liveCredentials } from '../../../src/node/credential-reload';
import { metricsListener } from '../../../src/node/metrics-listener';
import { createMetricsServer } from '../../../src/node/metrics-server';
import { PrometheusMetrics } from '../../../src/node/prometheus';
import { scratchDir } from '../../support/scratch';

const closing: Array<Server | NetServer> = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

const newMetrics = () => new PrometheusMetrics(promClient, { timeoutMs: 5000, build: { version: '9.8.7', dataset: '2026-10-01' }, runtime: false });

/** `createMetricsServer(metrics)` on a loopback port; closed after the test. */
async function served(metrics: Pick<PrometheusMetrics, 'text'>): Promise<string> {
  const server = createMetricsServer(metrics as PrometheusMetrics);
  closing.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The value of one series of a scrape (`name` or `name{labels}`), or undefined. */
function sample(body: string, series: string): number | undefined {
  const line = body.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('the metrics listener', () => {
  it('is not opened without METRICS_PORT', async () => {
    expect(await metricsListener(parseConfig({}), 'dataset', () => 'unused')).toBeUndefined();
  });

  it('listens where METRICS_HOST and METRICS_PORT say, serving the build and the start time', async () => {
    const before = Math.floor(Date.now() / 1000);
    const config = parseConfig({ METRICS_PORT: '0', METRICS_HOST: '127.0.0.1' });
    const observed = await metricsListener(config, '2026-10-01T00:00:00Z', () => '1.2.3');
    expect(observed?.at.host).toBe('127.0.0.1');
    expect(observed?.at.port).toBeGreaterThan(0);
    const res = await fetch(`http://127.0.0.1:${observed!.at.port}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = await res.text();
    expect(sample(body, 'gateway_build_info{version="1.2.3",dataset="2026-10-01T00:00:00Z"}')).toBe(1);
    const started = sample(body, 'gateway_start_time_seconds')!;
    expect(started).toBeGreaterThanOrEqual(before - 1);
    expect(started).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
    // What the gateway records goes to this listener.
    observed!.metrics.httpRejection(400);
    expect(await (await fetch(`http://127.0.0.1:${observed!.at.port}/metrics`)).text()).toMatch(/^gateway_http_rejections_total\{status="400"\} 1$/m);
  });

  it('names METRICS_PORT when the port is taken, and when it cannot be opened on METRICS_HOST', async () => {
    const taken = createNetServer();
    closing.push(taken);
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    const inUse = metricsListener(parseConfig({ METRICS_PORT: String(port), METRICS_HOST: '127.0.0.1' }), 'd', () => 'v');
    await expect(inUse).rejects.toBeInstanceOf(ConfigError);
    await expect(inUse).rejects.toThrow(
      `Invalid configuration: METRICS_PORT ${port} is already in use on 127.0.0.1: choose another METRICS_PORT or METRICS_HOST`,
    );
    await expect(metricsListener(parseConfig({ METRICS_PORT: '0', METRICS_HOST: '192.0.2.1' }), 'd', () => 'v')).rejects.toThrow(
      'Invalid configuration: METRICS_PORT 192.0.2.1:0 could not be opened (EADDRNOTAVAIL): choose another METRICS_PORT or METRICS_HOST',
    );
  });
});

describe('/metrics', () => {
  it('answers GET with the exposition, HEAD with its head alone, whatever the query', async () => {
    const origin = await served(newMetrics());
    const get = await fetch(`${origin}/metrics?debug=1`);
    expect(get.status).toBe(200);
    expect(await get.text()).toContain('# TYPE gateway_build_info gauge');
    const head = await fetch(`${origin}/metrics`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await head.text()).toBe('');
  });

  it('is the only path: 404 elsewhere, saying where the metrics are', async () => {
    const origin = await served(newMetrics());
    for (const path of ['/', '/metrics/', '/v2/species', '/metricsx']) {
      const res = await fetch(`${origin}${path}`);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await res.text()).toBe('Not found: metrics are at /metrics.\n');
    }
  });

  it('refuses other methods with 405 and Allow', async () => {
    const origin = await served(newMetrics());
    for (const method of ['POST', 'DELETE', 'OPTIONS']) {
      const res = await fetch(`${origin}/metrics`, { method });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, HEAD');
      expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await res.text()).toBe('Use GET.\n');
    }
  });

  it('answers 500 naming the failure when the metrics cannot be collected', async () => {
    const origin = await served({ text: () => Promise.reject(new Error('a collector threw')) });
    const res = await fetch(`${origin}/metrics`);
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await res.text()).toBe('Metrics could not be collected: a collector threw\n');
  });

  it('reports the credential file’s reloads: 1 and the time of the last applied, 0 after a refused one', async () => {
    const file = join(scratchDir('metrics-endpoint'), 'credentials.json');
    const write = async (id: string) => writeFileAtomic(file, JSON.stringify({ projects: [{ id, key_sha256: await sha256Hex(id), resources: '*' }] }));
    await write('acme');
    const credentials = liveCredentials(file, { log: () => {}, warn: () => {}, pollMs: 60_000 });
    try {
      const metrics = newMetrics();
      metrics.watchCredentialReloads(credentials.status);
      const origin = await served(metrics);
      const scrape = async () => {
        const body = await (await fetch(`${origin}/metrics`)).text();
        return {
          successful: sample(body, 'gateway_credentials_last_reload_successful'),
          at: sample(body, 'gateway_credentials_last_reload_success_timestamp_seconds'),
        };
      };
      expect(await scrape()).toEqual({ successful: 1, at: credentials.status().lastSuccessMs / 1000 });
      const applied = credentials.status().lastSuccessMs / 1000;
      writeFileAtomic(file, '{"projects": "none"}');
      credentials.reload('SIGHUP');
      expect(await scrape()).toEqual({ successful: 0, at: applied });
      await write('beta');
      credentials.reload('SIGHUP');
      expect(await scrape()).toEqual({ successful: 1, at: credentials.status().lastSuccessMs / 1000 });
    } finally {
      credentials.stop();
    }
  });
});
