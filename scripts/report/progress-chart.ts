/**
 * The index's progress by day as an SVG chart (`plans/progress.svg`): one line per status, the
 * clients not started, started and moved as of each day. Plain SVG, in the look of
 * docs/dashboard.svg; every text escaped.
 */
import type { ProgressRow } from './plans';

const SERIES = [
  ['not started', '#d62728'],
  ['started', '#ff7f0e'],
  ['moved', '#2ca02c'],
] as const;
const W = 640;
const H = 260;
const LEFT = 44;
const RIGHT = 16;
const TOP = 36;
const BOTTOM = 56;

const xmlText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A few whole-number ticks from 0 to at least `max`. */
function ticks(max: number): number[] {
  const step = Math.max(1, Math.ceil(max / 4));
  const out = [];
  for (let v = 0; v <= Math.max(max, 1); v += step) out.push(v);
  if (out.at(-1)! < max) out.push(out.at(-1)! + step);
  return out;
}

/** The chart of `rows` (one a day, in order). */
export function progressChart(rows: readonly ProgressRow[]): string {
  const yTicks = ticks(Math.max(0, ...rows.flatMap((r) => SERIES.map(([s]) => r[s]))));
  const top = yTicks.at(-1)!;
  const plotW = W - LEFT - RIGHT;
  const plotH = H - TOP - BOTTOM;
  const x = (i: number) => LEFT + (rows.length === 1 ? plotW / 2 : (i / (rows.length - 1)) * plotW);
  const y = (v: number) => TOP + (1 - v / top) * plotH;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${LEFT}" y="20" font-size="13" font-weight="bold">v1 clients by migration status, by day</text>`,
  ];
  for (const v of yTicks) {
    out.push(`<line x1="${LEFT}" y1="${y(v)}" x2="${W - RIGHT}" y2="${y(v)}" stroke="#eee"/>`);
    out.push(`<text x="${LEFT - 6}" y="${y(v) + 3}" font-size="10" fill="#666" text-anchor="end">${v}</text>`);
  }
  out.push(`<line x1="${LEFT}" y1="${y(0)}" x2="${W - RIGHT}" y2="${y(0)}" stroke="#999"/>`);
  // The first and last day, and some between when there are many.
  const every = Math.max(1, Math.ceil(rows.length / 6));
  rows.forEach((r, i) => {
    if (i % every === 0 || i === rows.length - 1)
      out.push(`<text x="${x(i)}" y="${y(0) + 14}" font-size="10" fill="#666" text-anchor="middle">${xmlText(r.day)}</text>`);
  });
  SERIES.forEach(([status, colour], k) => {
    const points = rows.map((r, i) => `${x(i).toFixed(1)},${y(r[status]).toFixed(1)}`).join(' ');
    out.push(`<polyline data-status="${status}" points="${points}" fill="none" stroke="${colour}" stroke-width="2"/>`);
    const lx = LEFT + k * 130;
    out.push(`<rect x="${lx}" y="${H - 20}" width="10" height="10" fill="${colour}"/>`);
    out.push(`<text x="${lx + 14}" y="${H - 11}" font-size="11">${xmlText(status)}</text>`);
  });
  out.push('</svg>', '');
  return out.join('\n');
}
