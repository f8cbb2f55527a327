import type { Report } from './aggregate';

const percent = (share: number | null) => (share === null ? '–' : `${(share * 100).toFixed(share === 1 || share === 0 ? 0 : 2)}%`);
const cell = (text: string) => text.replace(/\|/g, '\\|');
const counts = (c: Record<string, number>) =>
  Object.entries(c)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([k, n]) => `\`${cell(k)}\` (${n})`)
    .join(', ');

/** The report for people: who still calls v1 and how, then how well the facade matches the legacy backend. */
export function markdown(report: Report): string {
  const out: string[] = ['# v1 migration report', ''];
  const { lines, period } = report;
  out.push(`${lines.read} log lines read: ${lines.access} requests, ${lines.comparisons} comparison lines, ${lines.other} other, ${lines.not_json} not JSON.`);
  if (period.from) out.push(`Requests from ${period.from} to ${period.to}.`);
  out.push('');

  const stillV1 = report.subjects.filter((s) => s.v1_calls > 0);
  out.push('## Who calls v1', '');
  out.push(
    `${stillV1.length} of ${report.subjects.length} callers still call v1; ${stillV1.filter((s) => !s.calls_v2).length} of them never call v2. ${report.unauthenticated_v1_calls} v1 requests carried no valid credential.`,
    '',
  );
  if (report.subjects.length > 0) {
    out.push('| Caller | v1 calls | v2 calls | First v1 call | Last v1 call | v1 credential places | v1 routes | Brownout 410s | Calls v2 |');
    out.push('|---|---:|---:|---|---|---|---|---:|---|');
    for (const s of report.subjects) {
      out.push(
        `| ${cell(s.subject)} | ${s.v1_calls} | ${s.v2_calls} | ${s.first_v1_call ?? '–'} | ${s.last_v1_call ?? '–'} | ${counts(s.v1_credentials) || '–'} | ${counts(s.v1_routes) || '–'} | ${s.v1_brownout_hits} | ${s.calls_v2 ? 'yes' : 'no'} |`,
      );
    }
    out.push('');
  }

  out.push('## Parity of v1 answers (facade and legacy backend)', '');
  if (report.parity.routes.length === 0) {
    out.push('No comparisons in these logs (set `V1_COMPARE_PERCENT`).', '');
    return out.join('\n');
  }
  out.push('| Route | Compared | Matched | Match rate | Not made |', '|---|---:|---:|---:|---:|');
  for (const r of report.parity.routes) out.push(`| \`${r.route}\` | ${r.compared} | ${r.matched} | ${percent(r.match_rate)} | ${r.not_made} |`);
  out.push('');
  if (report.parity.paths.length === 0) {
    out.push('No differences.', '');
  } else {
    out.push('| Route | JSON path | Requests differing | Share of compared | Example request id |', '|---|---|---:|---:|---|');
    for (const p of report.parity.paths)
      out.push(`| \`${p.route}\` | \`${cell(p.json_path)}\` | ${p.differences} | ${percent(p.share)} | ${p.example_request_id ?? '–'} |`);
    out.push('');
  }
  return out.join('\n');
}
