/**
 * `npx tsx scripts/dashboard-chart.ts`: the dashboard's panels (dashboards/gateway.json) rendered
 * from a real scrape, as docs/dashboard.svg for docs/observability.md. It starts the gateway with metrics, its
 * upstream and legacy backend (test/support/observed-gateway.ts), and a real Prometheus server
 * scraping it every second, runs the mixed load for `CHART_SECONDS` (60), then draws each panel's
 * first expressions from Prometheus' range API. Needs the Debian package `prometheus`; no network.
 */
import { writeFileSync } from 'node:fs';
import { dashboardExpressions } from '../test/support/dashboard';
import { runMixedLoad, startObservedGateway } from '../test/support/observed-gateway';
import { startPrometheus, systemBinary } from '../test/support/prometheus-server';

const SECONDS = Number(process.env.CHART_SECONDS ?? 60);
const OUT = new URL('../docs/dashboard.svg', import.meta.url);
const W = 420;
const H = 170;
const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];

const xmlText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const legendOf = (format: string, metric: Record<string, string>) => format.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, k: string) => metric[k] ?? '');

type Line = { name: string; points: [number, number][] };

function panel(title: string, lines: Line[], x0: number, y0: number): string {
  const all = lines.flatMap((l) => l.points);
  const t0 = Math.min(...all.map((p) => p[0]));
  const t1 = Math.max(...all.map((p) => p[0]));
  const top = Math.max(...all.map((p) => p[1]), 1e-9) * 1.1;
  const px = (t: number) => x0 + 40 + ((t - t0) / Math.max(t1 - t0, 1)) * (W - 60);
  const py = (v: number) => y0 + 30 + (1 - v / top) * (H - 70);
  const out = [
    `<rect x="${x0 + 2}" y="${y0 + 2}" width="${W - 4}" height="${H - 4}" fill="#fff" stroke="#ccc"/>`,
    `<text x="${x0 + 10}" y="${y0 + 18}" font-size="12" font-weight="bold">${xmlText(title)}</text>`,
    `<text x="${x0 + 4}" y="${py(top) + 4}" font-size="9" fill="#666">${top.toPrecision(2)}</text>`,
    `<text x="${x0 + 4}" y="${py(0)}" font-size="9" fill="#666">0</text>`,
    `<line x1="${px(t0)}" y1="${py(0)}" x2="${px(t1)}" y2="${py(0)}" stroke="#999"/>`,
  ];
  lines.slice(0, COLOURS.length).forEach((l, i) => {
    const d = l.points.map(([t, v], k) => `${k === 0 ? 'M' : 'L'}${px(t).toFixed(1)},${py(v).toFixed(1)}`).join(' ');
    out.push(`<path d="${d}" fill="none" stroke="${COLOURS[i]}" stroke-width="1.5"/>`);
    const lx = x0 + 10 + (i % 3) * 135;
    const ly = y0 + H - 26 + Math.floor(i / 3) * 11;
    out.push(`<rect x="${lx}" y="${ly - 7}" width="8" height="8" fill="${COLOURS[i]}"/>`);
    out.push(`<text x="${lx + 11}" y="${ly}" font-size="9">${xmlText(l.name.slice(0, 26))}</text>`);
  });
  return out.join('\n');
}

async function main(): Promise<void> {
  const binary = systemBinary('prometheus');
  if (!binary) throw new Error('prometheus is not installed (Debian package prometheus)');
  const observed = await startObservedGateway();
  const prometheus = await startPrometheus(binary, [observed.metricsTarget]);
  try {
    const load = runMixedLoad(observed.origin);
    await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
    await load.stop();
    const byPanel = new Map<string, Line[]>();
    for (const e of dashboardExpressions('15s')) {
      const result = await prometheus.range(e.expr, SECONDS, 2);
      const lines = byPanel.get(e.panel) ?? [];
      for (const r of result) {
        const points = r.values.map(([t, v]) => [t, Number(v)] as [number, number]).filter(([, v]) => Number.isFinite(v));
        if (points.length > 0) lines.push({ name: legendOf(e.legend, r.metric), points });
      }
      byPanel.set(e.panel, lines);
    }
    const panels = [...byPanel].filter(([, lines]) => lines.length > 0);
    const cols = 2;
    const rows = Math.ceil(panels.length / cols);
    const body = panels.map(([title, lines], i) => panel(title, lines, (i % cols) * W, 24 + Math.floor(i / cols) * H)).join('\n');
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${cols * W}" height="${24 + rows * H}" font-family="sans-serif">
<rect width="100%" height="100%" fill="#f7f7f7"/>
<text x="8" y="16" font-size="12">dashboards/gateway.json from a real Prometheus scrape: ${SECONDS} s of the mixed load of test/support/observed-gateway.ts, scraped every second</text>
${body}
</svg>
`;
    writeFileSync(OUT, svg);
    console.log(`wrote ${OUT.pathname}: ${panels.length} panels`);
  } finally {
    await prometheus.stop();
    await observed.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
