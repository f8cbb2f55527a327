import type { LogLine } from '../services/log';
import type { ComparisonResult } from '../services/metrics';
import { differences, type Difference, type Side } from './compare';

/** Values longer than this (as JSON) are cut in log lines. */
const MAX_VALUE_CHARS = 200;

export interface Comparison {
  requestId: string;
  traceId: string;
  /** The caller (`project:<id>`), so a client's plan can say how its own v1 answers compared. */
  subject: string | null;
  /** `GET /species/{id}` */
  route: string;
  /** The caller's path and query, credentials redacted. */
  path: string;
  answeredBy: 'facade' | 'legacy';
  /** What the caller was given (read after the caller has it). */
  answered(): Promise<Side>;
  /** The other side's answer to the same request, computed now. */
  other(): Promise<Side>;
}

function shown(value: unknown): unknown {
  if (value === undefined) return '(absent)';
  const text = JSON.stringify(value);
  return text.length <= MAX_VALUE_CHARS ? value : `${text.slice(0, MAX_VALUE_CHARS)}…`;
}

/** The line of a comparison that could not be made, counted apart from differences. */
export function notMade(
  c: Pick<Comparison, 'requestId' | 'traceId' | 'subject' | 'route' | 'path'>,
  answeredBy: Comparison['answeredBy'],
  reason: string,
  log: (line: LogLine) => void,
  code?: string,
): void {
  log({
    level: 'warn',
    message: 'v1 comparison not made',
    request_id: c.requestId,
    trace_id: c.traceId,
    subject: c.subject,
    route: c.route,
    path: c.path,
    answered_by: answeredBy,
    reason,
    code: code ?? null,
  });
}

/**
 * Runs one comparison after the caller has been answered and writes its log lines: one
 * `v1 parity` warning per JSON path that differs (docs/reference/migration.md), one `v1 comparison`
 * line saying the comparison was made and how it came out (the report's denominator), or one
 * `v1 comparison not made` line when the other side could not answer. Never throws; resolves
 * with how it came out, for the metrics.
 */
export async function compareInBackground(c: Comparison, ignore: readonly string[], log: (line: LogLine) => void): Promise<ComparisonResult> {
  const about = { request_id: c.requestId, trace_id: c.traceId, subject: c.subject, route: c.route, path: c.path, answered_by: c.answeredBy };
  let answered: Side;
  let other: Side;
  try {
    [answered, other] = await Promise.all([c.answered(), c.other()]);
  } catch (err) {
    notMade(c, c.answeredBy, (err as Error).message, log, (err as { code?: string }).code);
    return 'not_made';
  }
  try {
    const [facade, legacy] = c.answeredBy === 'facade' ? [answered, other] : [other, answered];
    const byPath = new Map<string, Difference[]>();
    for (const d of differences(facade, legacy, ignore)) byPath.set(d.path, [...(byPath.get(d.path) ?? []), d]);
    for (const [jsonPath, found] of byPath) {
      const first = found[0]!;
      log({
        level: 'warn',
        message: 'v1 parity',
        ...about,
        json_path: jsonPath,
        at: first.at,
        kind: first.kind,
        occurrences: found.length,
        facade: shown(first.facade),
        legacy: shown(first.legacy),
      });
    }
    log({ level: 'info', message: 'v1 comparison', ...about, matched: byPath.size === 0, differences: byPath.size });
    return byPath.size === 0 ? 'same' : 'different';
  } catch (err) {
    log({ level: 'error', message: 'v1 comparison failed', ...about, error: (err as Error).message });
    return 'not_made';
  }
}
