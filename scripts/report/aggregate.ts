/**
 * The counts of a migration report, built one log line at a time: memory grows with the number
 * of subjects, routes and JSON paths, never with the number of lines.
 */
import { UsageBuilder } from '../../src/migration/plan/usage';

export interface SubjectUsage {
  subject: string;
  v1_calls: number;
  v2_calls: number;
  v3_calls: number;
  first_v1_call: string | null;
  last_v1_call: string | null;
  /** Credential kind and place used on v1 (`v1:query`, `apiKey`, ...), with counts. */
  v1_credentials: Record<string, number>;
  /** v1 route templates used, with counts. */
  v1_routes: Record<string, number>;
  /** v1 requests answered 410 by a brownout: the clients that would break at the sunset. */
  v1_brownout_hits: number;
  calls_v2: boolean;
}

export interface RouteParity {
  route: string;
  compared: number;
  matched: number;
  /** matched / compared, or null when nothing was compared. */
  match_rate: number | null;
  /** Comparisons that could not be made (the other side down or slow), counted apart. */
  not_made: number;
}

export interface PathParity {
  route: string;
  json_path: string;
  /** Compared requests whose answers differed at this path. */
  differences: number;
  /** differences / compared requests of the route. */
  share: number | null;
  example_request_id: string | null;
}

export interface Report {
  lines: { read: number; access: number; comparisons: number; not_json: number; other: number };
  period: { from: string | null; to: string | null };
  unauthenticated_v1_calls: number;
  subjects: SubjectUsage[];
  parity: { routes: RouteParity[]; paths: PathParity[] };
}

type Line = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const bump = (counts: Record<string, number>, key: string) => (counts[key] = (counts[key] ?? 0) + 1);

export class ReportBuilder {
  private readonly lines = { read: 0, access: 0, comparisons: 0, not_json: 0, other: 0 };
  private from: string | null = null;
  private to: string | null = null;
  private unauthenticated = 0;
  private readonly subjects = new Map<string, SubjectUsage>();
  private readonly routes = new Map<string, { compared: number; matched: number; not_made: number }>();
  private readonly paths = new Map<string, { route: string; json_path: string; differences: number; example: string | null }>();
  /** Each client's usage as its migration plan reads it (`--clients`). */
  readonly usage = new UsageBuilder();

  /** One raw log line (any text: lines that are not JSON objects are counted and skipped). */
  addText(text: string): void {
    if (text.trim() === '') return;
    let line: unknown;
    try {
      line = JSON.parse(text);
    } catch {
      line = undefined;
    }
    this.lines.read++;
    if (typeof line !== 'object' || line === null || Array.isArray(line)) {
      this.lines.not_json++;
      return;
    }
    this.add(line as Line);
  }

  add(line: Line): void {
    const message = str(line.message);
    if (message === 'v1 comparison' || message === 'v1 parity' || message === 'v1 comparison not made') {
      this.comparison(message, line);
      return;
    }
    if (typeof line.status === 'number' && 'version' in line && typeof line.method === 'string') {
      this.access(line);
      return;
    }
    this.lines.other++;
  }

  private access(line: Line): void {
    this.lines.access++;
    const time = str(line.time);
    if (time !== null) {
      if (this.from === null || time < this.from) this.from = time;
      if (this.to === null || time > this.to) this.to = time;
    }
    const version = str(line.version);
    const subject = str(line.subject);
    this.usage.add({
      time,
      version,
      subject,
      credential: str(line.credential),
      path: str(line.path) ?? '',
      route: str(line.route),
      status: typeof line.status === 'number' ? line.status : null,
      brownout: Array.isArray(line.flags) && line.flags.includes('brownout'),
    });
    if (subject === null) {
      if (version === 'v1') this.unauthenticated++;
      return;
    }
    let usage = this.subjects.get(subject);
    if (!usage) {
      usage = {
        subject,
        v1_calls: 0,
        v2_calls: 0,
        v3_calls: 0,
        first_v1_call: null,
        last_v1_call: null,
        v1_credentials: {},
        v1_routes: {},
        v1_brownout_hits: 0,
        calls_v2: false,
      };
      this.subjects.set(subject, usage);
    }
    if (version === 'v2') usage.v2_calls++;
    else if (version === 'v3') usage.v3_calls++;
    else if (version === 'v1') {
      usage.v1_calls++;
      if (time !== null) {
        if (usage.first_v1_call === null || time < usage.first_v1_call) usage.first_v1_call = time;
        if (usage.last_v1_call === null || time > usage.last_v1_call) usage.last_v1_call = time;
      }
      bump(usage.v1_credentials, str(line.credential) ?? 'unknown');
      bump(usage.v1_routes, str(line.route) ?? 'no route (404)');
      if (Array.isArray(line.flags) && line.flags.includes('brownout')) usage.v1_brownout_hits++;
    }
    usage.calls_v2 = usage.v2_calls > 0;
  }

  private comparison(message: string, line: Line): void {
    this.lines.comparisons++;
    const route = str(line.route) ?? 'unknown';
    const subject = str(line.subject);
    if (subject !== null && message === 'v1 comparison') this.usage.compared(subject, { matched: line.matched === true });
    if (subject !== null && message === 'v1 parity') this.usage.compared(subject, { jsonPath: str(line.json_path) ?? 'unknown' });
    let counts = this.routes.get(route);
    if (!counts) this.routes.set(route, (counts = { compared: 0, matched: 0, not_made: 0 }));
    if (message === 'v1 comparison') {
      counts.compared++;
      if (line.matched === true) counts.matched++;
    } else if (message === 'v1 comparison not made') {
      counts.not_made++;
    } else {
      const jsonPath = str(line.json_path) ?? 'unknown';
      const key = `${route}\u0000${jsonPath}`;
      const found = this.paths.get(key);
      if (found) found.differences++;
      else this.paths.set(key, { route, json_path: jsonPath, differences: 1, example: str(line.request_id) });
    }
  }

  result(): Report {
    const subjects = [...this.subjects.values()].sort((a, b) => b.v1_calls - a.v1_calls || a.subject.localeCompare(b.subject));
    const routes = [...this.routes.entries()]
      .map(([route, c]) => ({ route, ...c, match_rate: c.compared > 0 ? c.matched / c.compared : null }))
      .sort((a, b) => a.route.localeCompare(b.route));
    const paths = [...this.paths.values()]
      .map((p) => {
        const compared = this.routes.get(p.route)?.compared ?? 0;
        return {
          route: p.route,
          json_path: p.json_path,
          differences: p.differences,
          share: compared > 0 ? p.differences / compared : null,
          example_request_id: p.example,
        };
      })
      .sort((a, b) => a.route.localeCompare(b.route) || b.differences - a.differences || a.json_path.localeCompare(b.json_path));
    return {
      lines: { ...this.lines },
      period: { from: this.from, to: this.to },
      unauthenticated_v1_calls: this.unauthenticated,
      subjects,
      parity: { routes, paths },
    };
  }
}
