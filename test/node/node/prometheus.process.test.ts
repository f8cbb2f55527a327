/**
 * The metrics as an operator meets them (docs/reference/observability.md): a real gateway process under a
 * small mixed load, its exposition checked by `promtool check metrics`, scraped every second by a
 * real Prometheus server, and every PromQL expression of the dashboard (dashboards/gateway.json)
 * answering with series. Skipped, saying so, where the Debian package `prometheus` is absent.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardExpressions } from '../../support/dashboard';
import { mixedRound, type ObservedGateway, runMixedLoad, startObservedGateway } from '../../support/observed-gateway';
import { type PrometheusServer, startPrometheus, systemBinary } from '../../support/prometheus-server';

const PROMETHEUS = systemBinary('prometheus');
const PROMTOOL = systemBinary('promtool');
if (!PROMETHEUS) console.warn('SKIPPED: the Prometheus scrape tests need /usr/bin/prometheus (Debian package prometheus; .ci/run installs it)');
if (!PROMTOOL) console.warn('SKIPPED: the exposition check needs promtool (Debian package prometheus; .ci/run installs it)');

let observed: ObservedGateway | undefined;

describe.skipIf(!PROMETHEUS && !PROMTOOL)('a real gateway process with METRICS_PORT', () => {
  beforeAll(async () => {
    observed = await startObservedGateway();
  });
  afterAll(async () => {
    await observed?.stop();
  });

  it('serves /metrics on its own listener, never on the API port', async () => {
    const api = await fetch(`${observed!.origin}/metrics`);
    expect(api.status).toBe(404);
    const res = await fetch(`http://${observed!.metricsTarget}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await res.text();
    for (const name of [
      'gateway_requests_total',
      'gateway_request_duration_seconds',
      'gateway_breaker_state',
      'gateway_build_info',
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
      'nodejs_gc_duration_seconds',
    ])
      expect(text).toContain(`# HELP ${name} `);
  });

  it('counts the v1 clients it served by migration status, never naming one', async () => {
    await mixedRound(observed!.origin, 0);
    const text = await (await fetch(`http://${observed!.metricsTarget}/metrics`)).text();
    const series = [...text.matchAll(/^gateway_v1_clients\{status="([^"]+)"\} (\d+)$/gm)].map((m) => [m[1], Number(m[2])]);
    // The load's one project calls v1 with three credential places and v2 too: one client, started.
    expect(Object.fromEntries(series)).toEqual({ 'not started': 0, started: 1, moved: 0, 'at risk': 0 });
    expect(text).not.toMatch(/gateway_v1_clients\{[^}]*project/);
  });

  it.skipIf(!PROMTOOL)(
    `the exposition under load passes promtool check metrics${PROMTOOL ? '' : ' (SKIPPED: promtool not installed)'}`,
    async () => {
      for (const n of [0, 1]) await mixedRound(observed!.origin, n);
      const text = await (await fetch(`http://${observed!.metricsTarget}/metrics`)).text();
      expect(text).toContain('gateway_upstream_cache_lookups_total{result="hit"}');
      expect(text).toContain('gateway_shadow_comparisons_total{');
      expect(text).toContain('gateway_http_rejections_total{status="400"}');
      const checked = spawnSync(PROMTOOL!, ['check', 'metrics'], { input: text, encoding: 'utf8' });
      expect(checked.stdout + checked.stderr).toBe('');
      expect(checked.status).toBe(0);
    },
    120_000,
  );

  describe.skipIf(!PROMETHEUS)(`scraped by Prometheus${PROMETHEUS ? '' : ' (SKIPPED: prometheus not installed)'}`, () => {
    let prometheus: PrometheusServer | undefined;
    afterAll(async () => {
      await prometheus?.stop();
    });

    it('every expression of the dashboard returns series', async () => {
      prometheus = await startPrometheus(PROMETHEUS!, [observed!.metricsTarget]);
      const load = runMixedLoad(observed!.origin);
      const expressions = dashboardExpressions();
      expect(expressions.length).toBeGreaterThanOrEqual(12);
      let empty = expressions;
      const deadline = Date.now() + 45_000;
      try {
        while (empty.length > 0 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 1000));
          const answered = await Promise.all(empty.map(async (e) => ((await prometheus!.query(e.expr)).length > 0 ? undefined : e)));
          empty = answered.filter((e) => e !== undefined);
        }
      } finally {
        await load.stop();
      }
      expect(empty.map((e) => `${e.panel}: ${e.expr}`)).toEqual([]);
      // The scrape saw the gateway's own labels, never a raw path or an id.
      const routes = await prometheus.query('count by (route) (gateway_requests_total)');
      const names = routes.map((r) => r.metric.route).sort();
      expect(names).toContain('/species/{id}');
      expect(names).toContain('unmatched');
      expect(names.filter((r) => /NO-SUCH|ABBA|\/no\/such/.test(r!))).toEqual([]);
    });
  });
});
