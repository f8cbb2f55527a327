/** The Grafana dashboard in the repository (dashboards/gateway.json), read as its panels' queries. */
import { readFileSync } from 'node:fs';

/** Every PromQL expression of the dashboard, with Grafana's rate interval as a fixed window. */
export function dashboardExpressions(rateInterval = '30s'): { panel: string; expr: string; legend: string }[] {
  const dashboard = JSON.parse(readFileSync(new URL('../../dashboards/gateway.json', import.meta.url), 'utf8')) as {
    panels: { title: string; targets: { expr: string; legendFormat: string }[] }[];
  };
  return dashboard.panels.flatMap((p) =>
    p.targets.map((t) => ({ panel: p.title, expr: t.expr.replaceAll('$__rate_interval', rateInterval), legend: t.legendFormat })),
  );
}
