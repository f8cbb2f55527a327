import type { AddressInfo } from 'node:net';
import { type Config, ConfigError } from '../config';
import type { PrometheusMetrics } from './prometheus';

/**
 * Prometheus metrics on their own listener when `METRICS_PORT` is set (docs/reference/observability.md);
 * resolves once it listens, with where. Unset: no listener, the gateway records nothing, and
 * prom-client is never loaded (a dynamic import, as the Redis client's). The build-info metric
 * names the dataset and the gateway's version (read only when there is a listener).
 */
export async function metricsListener(
  config: Config,
  dataset: string,
  version: () => string,
): Promise<{ metrics: PrometheusMetrics; at: { host: string; port: number } } | undefined> {
  const { port, host } = config.metrics;
  if (port === undefined) return undefined;
  const [{ prometheusMetrics }, { createMetricsServer }] = await Promise.all([import('./prometheus'), import('./metrics-server')]);
  const metrics = await prometheusMetrics({ timeoutMs: config.upstream.timeoutMs, build: { version: version(), dataset } });
  const server = createMetricsServer(metrics);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      const taken = err.code === 'EADDRINUSE' ? `${port} is already in use on ${host}` : `${host}:${port} could not be opened (${err.code ?? err.message})`;
      reject(new ConfigError('METRICS_PORT', `${taken}: choose another METRICS_PORT or METRICS_HOST`));
    });
    server.listen(port, host, resolve);
  });
  // Scrapes must not keep a draining gateway alive.
  server.unref();
  const info = server.address() as AddressInfo;
  return { metrics, at: { host: info.address, port: info.port } };
}
