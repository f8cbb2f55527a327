/**
 * The metrics listener (docs/reference/observability.md): `GET /metrics` on `METRICS_HOST:METRICS_PORT`, a
 * server of its own, so the API port never serves the gateway's internals and a scrape never
 * waits behind API traffic's connection limit.
 */
import { createServer, type Server } from 'node:http';
import type { PrometheusMetrics } from './prometheus';

export function createMetricsServer(metrics: PrometheusMetrics): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found: metrics are at /metrics.\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' }).end('Use GET.\n');
      return;
    }
    metrics.text().then(
      ({ body, contentType }) => {
        res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      (err: unknown) => {
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`Metrics could not be collected: ${(err as Error).message}\n`);
      },
    );
  });
}
