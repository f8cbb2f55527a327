/**
 * What one client did, counted from its requests' access facts: the input of its migration plan
 * (`plan.ts`). Every count is bounded (a handful of routes, places and statuses; at most
 * `MAX_PAGES` page numbers a route; one entry a day of v1 calls), so a log of any length costs
 * memory by the number of clients only.
 */

/** Distinct page numbers kept a route; deeper ones are counted under `other`. */
export const MAX_PAGES = 24;

/** A v1 credential place as the plan names it. */
export type V1Place = 'query:key' | 'query:token' | 'x-api-key' | 'x-key' | 'authorization:apikey' | 'authorization:bearer';

/** How a client moved through one collection route's pages. */
export interface PageWalk {
  /** Page numbers asked (`"1"`, `"7"`, ..., `"other"`), with counts. */
  pages: Record<string, number>;
  /** Requests for page 1, or for the page after the one this route was last asked for: a walk by `links.next`. */
  steps: number;
  /** Requests for any other page: page numbers the client computes. */
  jumps: number;
  last: number;
}

export interface ClientUsage {
  subject: string;
  calls: { v1: number; v2: number; v3: number };
  first_v1_call: string | null;
  last_v1_call: string | null;
  first_v2_call: string | null;
  last_v2_call: string | null;
  /** v1 calls by credential place. */
  places: Partial<Record<V1Place, number>>;
  /** v1 calls by base path (`/v1`, `/api/v1`). */
  bases: Record<string, number>;
  /** v1 calls by route template (`GET /species/{id}`); `unmatched` for paths no route has. */
  routes: Record<string, number>;
  /** v1 collection routes' pages. */
  walks: Record<string, PageWalk>;
  /** v1 answers of status 400 and above, by status. */
  errors: Record<string, number>;
  /** v1 calls answered 410 inside a brownout. */
  brownout_hits: number;
  /** Days (`YYYY-MM-DD`) with at least one v1 call, in order. */
  v1_days: string[];
}

/** The facts of one request the plan reads: the access line's members of the same names. */
export interface AccessFacts {
  time: string | null;
  version: string | null;
  subject: string | null;
  /** The access line's `credential` label (`v1:query`, `v1:x-api-key`, `apiKey`, `bearer`). */
  credential: string | null;
  /** The redacted path and query. */
  path: string;
  route: string | null;
  status: number | null;
  brownout: boolean;
}

const bump = (counts: Record<string, number>, key: string) => (counts[key] = (counts[key] ?? 0) + 1);

/** The v1 place of a credential label, the query's parameter name read from the redacted path. */
export function v1Place(credential: string | null, path: string): V1Place | null {
  switch (credential) {
    case 'v1:x-api-key':
      return 'x-api-key';
    case 'v1:x-key':
      return 'x-key';
    case 'apiKey':
      return 'authorization:apikey';
    case 'bearer':
      return 'authorization:bearer';
    case 'v1:query':
      return /[?&]key=/i.test(path) ? 'query:key' : 'query:token';
    default:
      return null;
  }
}

/** The `page` asked for in a path's query (1 when absent or unreadable). */
function pageOf(path: string): number {
  const match = /[?&]page=(\d{1,9})(?:&|$)/.exec(path);
  return match ? Number(match[1]) || 1 : 1;
}

/** Collection routes (no `{id}` at the end) are paged. */
const isCollection = (route: string) => !route.endsWith('{id}');

function emptyUsage(subject: string): ClientUsage {
  return {
    subject,
    calls: { v1: 0, v2: 0, v3: 0 },
    first_v1_call: null,
    last_v1_call: null,
    first_v2_call: null,
    last_v2_call: null,
    places: {},
    bases: {},
    routes: {},
    walks: {},
    errors: {},
    brownout_hits: 0,
    v1_days: [],
  };
}

const earlier = (a: string | null, b: string) => (a === null || b < a ? b : a);
const later = (a: string | null, b: string) => (a === null || b > a ? b : a);

/** Every client's usage, built one request at a time. */
export class UsageBuilder {
  private readonly clients = new Map<string, ClientUsage>();

  add(f: AccessFacts): void {
    if (f.subject === null) return;
    let u = this.clients.get(f.subject);
    if (!u) this.clients.set(f.subject, (u = emptyUsage(f.subject)));
    if (f.version === 'v2' || f.version === 'v3') {
      u.calls[f.version]++;
      if (f.time !== null && f.version === 'v2') {
        u.first_v2_call = earlier(u.first_v2_call, f.time);
        u.last_v2_call = later(u.last_v2_call, f.time);
      }
      return;
    }
    if (f.version !== 'v1') return;
    u.calls.v1++;
    if (f.time !== null) {
      u.first_v1_call = earlier(u.first_v1_call, f.time);
      u.last_v1_call = later(u.last_v1_call, f.time);
      const day = f.time.slice(0, 10);
      if (!u.v1_days.includes(day)) u.v1_days = [...u.v1_days, day].sort();
    }
    const place = v1Place(f.credential, f.path);
    if (place) u.places[place] = (u.places[place] ?? 0) + 1;
    bump(u.bases, f.path.startsWith('/api/v1') ? '/api/v1' : '/v1');
    const route = f.route ?? 'unmatched';
    bump(u.routes, route);
    if (f.status !== null && f.status >= 400) bump(u.errors, String(f.status));
    if (f.brownout) u.brownout_hits++;
    if (f.route !== null && isCollection(f.route) && f.status !== null && f.status < 500) this.page(u, f.route, pageOf(f.path));
  }

  private page(u: ClientUsage, route: string, page: number): void {
    const walk = (u.walks[route] ??= { pages: {}, steps: 0, jumps: 0, last: 0 });
    const key = String(page);
    if (key in walk.pages || Object.keys(walk.pages).length < MAX_PAGES) bump(walk.pages, key);
    else bump(walk.pages, 'other');
    if (page === 1 || page === walk.last + 1) walk.steps++;
    else walk.jumps++;
    walk.last = page;
  }

  /** The clients, most v1 calls first. */
  result(): ClientUsage[] {
    return [...this.clients.values()].sort((a, b) => b.calls.v1 - a.calls.v1 || a.subject.localeCompare(b.subject));
  }
}
