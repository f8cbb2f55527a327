/** The index's progress chart (`plans/progress.svg`): one line per status, one point a day, heights by count. */
import { describe, expect, it } from 'vitest';
import type { ProgressRow } from '../../../scripts/report/plans';
import { progressChart } from '../../../scripts/report/progress-chart';

const row = (day: string, notStarted: number, started: number, moved: number): ProgressRow => ({
  day,
  'not started': notStarted,
  started,
  moved,
  'at risk': 0,
});
const ROWS = [row('2026-11-01', 5, 0, 0), row('2026-11-02', 4, 1, 0), row('2026-11-03', 2, 2, 1), row('2026-11-04', 0, 1, 4)];

/** Each status's points, as `[x, y]`. */
function series(svg: string): Record<string, Array<[number, number]>> {
  const out: Record<string, Array<[number, number]>> = {};
  for (const m of svg.matchAll(/<polyline data-status="([^"]+)" points="([^"]*)"/g)) {
    out[m[1]!] = m[2]!.split(' ').map((p) => p.split(',').map(Number) as [number, number]);
  }
  return out;
}

/** Every element opened is closed, in order (a small well-formedness check: no XML parser is installed). */
function balanced(svg: string): boolean {
  const open: string[] = [];
  for (const [tag, close, name, selfClosing] of svg.matchAll(/<(\/?)([a-z]+)[^>]*?(\/?)>/g)) {
    if (tag.startsWith('<?')) continue;
    if (selfClosing) continue;
    if (close) {
      if (open.pop() !== name) return false;
    } else open.push(name!);
  }
  return open.length === 0;
}

describe('progressChart', () => {
  it('draws each status with one point a day, higher for a greater count', () => {
    const svg = progressChart(ROWS);
    expect(balanced(svg)).toBe(true);
    const lines = series(svg);
    expect(Object.keys(lines)).toEqual(['not started', 'started', 'moved']);
    for (const [status, points] of Object.entries(lines)) {
      expect(points, status).toHaveLength(ROWS.length);
      // Days left to right.
      for (let i = 1; i < points.length; i++) expect(points[i]![0]).toBeGreaterThan(points[i - 1]![0]);
      // The same count at the same height, a greater one higher (smaller y), across every series.
      points.forEach(([, y], i) => {
        for (const [other, theirs] of Object.entries(lines)) {
          theirs.forEach(([, y2], j) => {
            const a = ROWS[i]![status as 'moved'];
            const b = ROWS[j]![other as 'moved'];
            if (a > b) expect(y, `${status} ${ROWS[i]!.day} above ${other} ${ROWS[j]!.day}`).toBeLessThan(y2);
            if (a === b) expect(y).toBeCloseTo(y2, 5);
          });
        }
      });
    }
    for (const name of ['not started', 'started', 'moved']) expect(svg).toContain(`>${name}</text>`);
    expect(svg).toContain('>2026-11-01</text>');
    expect(svg).toContain('>2026-11-04</text>');
  });

  it('draws a single day and all-zero counts without NaN or Infinity', () => {
    for (const rows of [[row('2026-11-01', 3, 1, 0)], [row('2026-11-01', 0, 0, 0), row('2026-11-02', 0, 0, 0)]]) {
      const svg = progressChart(rows);
      expect(svg).not.toMatch(/NaN|Infinity/);
      expect(balanced(svg)).toBe(true);
      for (const points of Object.values(series(svg))) expect(points).toHaveLength(rows.length);
    }
  });

  it('escapes the text it draws', () => {
    expect(progressChart([row('<b>&', 1, 0, 0)])).toContain('>&lt;b&gt;&amp;</text>');
  });
});
