/** What a slice of autocannon load on one server measured, and slices added up. */

export interface Stats {
  rps: number;
  p99: number;
  cpuUs: number;
  failures: number;
  /** Totals, so slices can be added up. */
  requests: number;
  cpuSeconds: number;
}

/** Slices of one server's load as one measurement. */
export function added(slices: Stats[]): Stats {
  const requests = slices.reduce((n, s) => n + s.requests, 0);
  const cpu = slices.reduce((n, s) => n + s.cpuSeconds, 0);
  return {
    rps: slices.reduce((n, s) => n + s.rps, 0) / slices.length,
    p99: Math.max(...slices.map((s) => s.p99)),
    cpuUs: requests > 0 ? (cpu * 1e6) / requests : NaN,
    failures: slices.reduce((n, s) => n + s.failures, 0),
    requests,
    cpuSeconds: cpu,
  };
}
