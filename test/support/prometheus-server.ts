/**
 * A real Prometheus server (Debian package `prometheus`) of its own: a plain process with a
 * temporary configuration and storage, scraping given targets every second, on a free loopback port.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startProcess } from '../../tools/processes';

/** The path of a system binary, or undefined when it is not installed. */
export function systemBinary(name: string): string | undefined {
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() || undefined : undefined;
}

export interface PrometheusServer {
  url: string;
  /** The result of an instant query (`/api/v1/query`): one entry per series. */
  query(expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  /** A range query (`/api/v1/query_range`) over the last `seconds`, one point per `step` seconds. */
  range(expr: string, seconds: number, step: number): Promise<{ metric: Record<string, string>; values: [number, string][] }[]>;
  stop(): Promise<void>;
}

/** Starts Prometheus scraping `targets` (`host:port`, path `/metrics`) every second; resolves once it is ready. */
export async function startPrometheus(binary: string, targets: string[]): Promise<PrometheusServer> {
  const dir = mkdtempSync(join(tmpdir(), 'prometheus-'));
  const config = join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    [
      'global:',
      '  scrape_interval: 1s',
      '  evaluation_interval: 1s',
      'scrape_configs:',
      '  - job_name: gateway',
      '    static_configs:',
      `      - targets: [${targets.map((t) => `'${t}'`).join(', ')}]`,
      '',
    ].join('\n'),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // Ready once it logs so (info level, on stderr): waiting on that line, not polling.
  const prometheus = await startProcess({
    command: binary,
    args: [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=info'],
    ready: (line) => (line.includes('Server is ready to receive web requests') ? true : undefined),
    readyOn: 'any',
    keepLines: false,
  }).catch((error: Error) => {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  });
  const stop = async () => {
    await prometheus.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  const api = async (path: string, params: Record<string, string>) => {
    const res = await fetch(`${url}${path}?${new URLSearchParams(params)}`);
    const body = (await res.json()) as { status: string; data?: { result: unknown }; error?: string };
    if (body.status !== 'success') throw new Error(`${path} ${JSON.stringify(params)}: ${body.error ?? res.status}`);
    return body.data!.result;
  };
  return {
    url,
    query: async (expr) => (await api('/api/v1/query', { query: expr })) as Awaited<ReturnType<PrometheusServer['query']>>,
    range: async (expr, seconds, step) => {
      const end = Date.now() / 1000;
      return (await api('/api/v1/query_range', { query: expr, start: String(end - seconds), end: String(end), step: String(step) })) as Awaited<
        ReturnType<PrometheusServer['range']>
      >;
    },
    stop,
  };
}
