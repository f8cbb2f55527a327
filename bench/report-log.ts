/**
 * A synthetic gateway log for the report's test and its memory benchmark: access lines of many
 * callers on v1 and v2, every tenth request compared, some comparisons differing. Line `i` is a
 * pure function of `i`, so a log of any length is written without being held.
 */
export const SUBJECTS = 500;
const PLACES = ['apiKey', 'v1:x-api-key', 'v1:query', 'bearer'];
const ROUTES = ['GET /species', 'GET /species/{id}', 'GET /genus', 'GET /plants/{id}'];
const START = Date.parse('2027-01-01T00:00:00Z');

export interface SampleRequest {
  time: string;
  subject: string;
  version: 'v1' | 'v2';
  credential: string;
  route: string;
  /** Every tenth request is compared; every fifth comparison of `GET /species` differs at `data[].rank`. */
  compared: boolean;
  differs: boolean;
}

export function sampleRequest(i: number, subjects = SUBJECTS): SampleRequest {
  const route = ROUTES[i % ROUTES.length]!;
  const compared = i % 10 === 0;
  return {
    time: new Date(START + i * 1000).toISOString(),
    subject: `project:p${i % subjects}`,
    version: i % 7 === 0 ? 'v2' : 'v1',
    credential: PLACES[Math.floor(i / subjects) % PLACES.length]!,
    route,
    compared,
    differs: compared && route === 'GET /species' && i % 50 === 0,
  };
}

/** The log lines of request `i`: its access line, and its comparison lines when compared. */
export function sampleLines(i: number, subjects = SUBJECTS): string[] {
  const r = sampleRequest(i, subjects);
  const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
  const lines = [
    JSON.stringify({
      time: r.time,
      request_id: id,
      method: 'GET',
      path: `/${r.version}/species?q=oak&page=${i % 30}`,
      version: r.version,
      route: r.route,
      status: 200,
      duration_ms: 1.25,
      subject: r.subject,
      credential: r.version === 'v2' ? 'apiKey' : r.credential,
    }),
  ];
  if (r.version === 'v1' && r.compared) {
    const about = { request_id: id, route: r.route, path: '/v1/species?q=oak', answered_by: 'facade' };
    if (r.differs)
      lines.push(
        JSON.stringify({
          level: 'warn',
          message: 'v1 parity',
          ...about,
          json_path: 'data[].rank',
          at: 'data[3].rank',
          kind: 'value',
          occurrences: 1,
          facade: 'SPECIES',
          legacy: 'species',
        }),
      );
    lines.push(JSON.stringify({ level: 'info', message: 'v1 comparison', ...about, matched: !r.differs, differences: r.differs ? 1 : 0 }));
  }
  return lines;
}
