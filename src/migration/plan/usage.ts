/**
 * What one client did, counted from its requests' access facts: the input of its migration plan
 * (`plan.ts`). Every count is bounded (a handful of routes, places and statuses; at most
 * `MAX_PAGES` page numbers a route; one entry a day of v1 calls), so a log of any length costs
 * memory by the number of clients only.
 */

import { MIGRATION_PLAN_PATH } from '../../core/route-template';

/** Distinct page numbers kept a route; deeper ones are counted under `other`. */
export const MAX_PAGES = 24;

/** Days of v1 calls a store keeps per client: enough for "moved" (7 days) and a month's progress. */
export const STORE_DAYS = 35;

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
  /** The first page and the last page asked, so counts made apart (one isolate's, another's) join up. */
  first: number;
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
  /** Its v1 answers compared with the legacy backend (the report's comparison lines). */
  compared: Parity;
}

/** Shadow comparisons of a client's v1 answers: how many, how many differed, where (JSON paths). */
export interface Parity {
  answers: number;
  differed: number;
  /** Differences by JSON path (`data[].rank`), at most `MAX_PATHS`, then `other`. */
  paths: Record<string, number>;
}

/** Distinct JSON paths of differences kept a client. */
export const MAX_PATHS = 16;

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

/** Counts `key`; true when it is a new one (the usage grew). */
const bump = (counts: Record<string, number>, key: string): boolean => {
  const n = counts[key];
  counts[key] = (n ?? 0) + 1;
  return n === undefined;
};

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
  // The first `page` parameter whose whole value is 1 to 9 digits; read by hand: every v1 request asks.
  for (let at = path.indexOf('page='); at > 0; at = path.indexOf('page=', at + 1)) {
    const before = path.charCodeAt(at - 1);
    if (before !== QUESTION_MARK && before !== AMPERSAND) continue;
    const start = at + 5;
    let end = start;
    while (end < path.length && isDigit(path.charCodeAt(end))) end++;
    if (end > start && end - start <= 9 && (end === path.length || path.charCodeAt(end) === AMPERSAND)) return Number(path.slice(start, end)) || 1;
  }
  return 1;
}

const QUESTION_MARK = 0x3f;
const AMPERSAND = 0x26;
const isDigit = (code: number) => code >= 0x30 && code <= 0x39;

/** Collection routes (no `{id}` at the end) are paged. */
const isCollection = (route: string) => !route.endsWith('{id}');

/** The usage of a client nothing was recorded of yet. */
export function emptyUsage(subject: string): ClientUsage {
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
    compared: { answers: 0, differed: 0, paths: {} },
  };
}

const earlier = (a: string | null, b: string | null) => (a === null || (b !== null && b < a) ? b : a);
const later = (a: string | null, b: string | null) => (a === null || (b !== null && b > a) ? b : a);

/**
 * The self-service route (`GET /v2/migration-plan`): reading one's plan is neither a v1 call nor
 * a step of the migration, so it is counted nowhere.
 */
export const PLAN_ROUTE = `GET ${MIGRATION_PLAN_PATH}`;

/** Whether a request counts toward its client's usage. */
export const counted = (f: AccessFacts) => f.subject !== null && f.route !== PLAN_ROUTE;

/**
 * Counts one request into its client's usage; true when the usage grew a member (a new route,
 * page, status, place or day), which a store bounded by bytes weighs again. `maxDays` bounds
 * `v1_days` to the latest days (a store that lives for months); a report over given logs keeps them all.
 */
export function countRequest(u: ClientUsage, f: AccessFacts, maxDays = Number.POSITIVE_INFINITY): boolean {
  if (f.version === 'v2' || f.version === 'v3') {
    u.calls[f.version]++;
    if (f.time !== null && f.version === 'v2') {
      u.first_v2_call = earlier(u.first_v2_call, f.time);
      u.last_v2_call = later(u.last_v2_call, f.time);
    }
    return false;
  }
  if (f.version !== 'v1') return false;
  u.calls.v1++;
  let grew = false;
  if (f.time !== null) {
    u.first_v1_call = earlier(u.first_v1_call, f.time);
    u.last_v1_call = later(u.last_v1_call, f.time);
    grew = addDay(u, f.time, maxDays);
  }
  const place = v1Place(f.credential, f.path);
  if (place) grew = bump(u.places, place) || grew;
  grew = bump(u.bases, f.path.startsWith('/api/v1') ? '/api/v1' : '/v1') || grew;
  const route = f.route ?? 'unmatched';
  grew = bump(u.routes, route) || grew;
  if (f.status !== null && f.status >= 400) grew = bump(u.errors, String(f.status)) || grew;
  if (f.brownout) u.brownout_hits++;
  if (f.route !== null && isCollection(f.route) && f.status !== null && f.status < 500) grew = countPage(u, f.route, pageOf(f.path)) || grew;
  return grew;
}

/** Counts the day of `time` (an RFC 3339 instant, or its day alone) among the client's v1 days; true when it is new. */
function addDay(u: ClientUsage, time: string, maxDays: number): boolean {
  // Most requests fall on the last day counted: compared in place, no day string is cut from the time.
  const last = u.v1_days.at(-1);
  if (last !== undefined && time.startsWith(last)) return false;
  const day = time.slice(0, 10);
  if (u.v1_days.includes(day)) return false;
  const days = [...u.v1_days, day].sort();
  u.v1_days = days.length > maxDays ? days.slice(days.length - maxDays) : days;
  return true;
}

/** A page number counted into a route's walk: at most `MAX_PAGES` distinct ones, then `other`. */
function countPage(u: ClientUsage, route: string, page: number): boolean {
  let walk = u.walks[route];
  const grew = walk === undefined;
  if (!walk) u.walks[route] = walk = { pages: {}, steps: 0, jumps: 0, first: page, last: 0 };
  const key = String(page);
  const pageGrew = bump(walk.pages, key in walk.pages || Object.keys(walk.pages).length < MAX_PAGES ? key : 'other');
  if (page === 1 || page === walk.last + 1) walk.steps++;
  else walk.jumps++;
  walk.last = page;
  return grew || pageGrew;
}

/** Callers whose every v1 call was refused (401, 403) are not migrating: they have no plan. */
export const refusedOnly = (u: ClientUsage) => u.calls.v1 > 0 && (u.errors['401'] ?? 0) + (u.errors['403'] ?? 0) === u.calls.v1;

/** Whether a client has a migration plan: it called v1, and not only to be refused. */
export const hasPlan = (u: ClientUsage) => u.calls.v1 > 0 && !refusedOnly(u);

const addCounts = (into: Record<string, number>, from: Readonly<Record<string, number>>) => {
  for (const [key, n] of Object.entries(from)) into[key] = (into[key] ?? 0) + n;
};

/**
 * `delta`'s counts added to `into`, as if its requests had come after `into`'s: the Workers store
 * sums what each isolate counted. Page numbers stay within `MAX_PAGES` a route.
 */
export function mergeUsage(into: ClientUsage, delta: ClientUsage, maxDays = Number.POSITIVE_INFINITY): ClientUsage {
  into.calls.v1 += delta.calls.v1;
  into.calls.v2 += delta.calls.v2;
  into.calls.v3 += delta.calls.v3;
  into.first_v1_call = earlier(into.first_v1_call, delta.first_v1_call);
  into.last_v1_call = later(into.last_v1_call, delta.last_v1_call);
  into.first_v2_call = earlier(into.first_v2_call, delta.first_v2_call);
  into.last_v2_call = later(into.last_v2_call, delta.last_v2_call);
  addCounts(into.places, delta.places);
  addCounts(into.bases, delta.bases);
  addCounts(into.routes, delta.routes);
  addCounts(into.errors, delta.errors);
  into.brownout_hits += delta.brownout_hits;
  into.compared.answers += delta.compared.answers;
  into.compared.differed += delta.compared.differed;
  for (const [path, n] of Object.entries(delta.compared.paths)) {
    const key = path !== 'other' && (path in into.compared.paths || Object.keys(into.compared.paths).length < MAX_PATHS) ? path : 'other';
    into.compared.paths[key] = (into.compared.paths[key] ?? 0) + n;
  }
  for (const day of delta.v1_days) addDay(into, day, maxDays);
  for (const [route, walk] of Object.entries(delta.walks)) {
    const kept = into.walks[route];
    if (!kept) {
      into.walks[route] = structuredClone(walk);
      continue;
    }
    for (const [page, n] of Object.entries(walk.pages)) {
      const key = page !== 'other' && (page in kept.pages || Object.keys(kept.pages).length < MAX_PAGES) ? page : 'other';
      kept.pages[key] = (kept.pages[key] ?? 0) + n;
    }
    // The delta's first page was judged against no page before it: it is a step when it follows `into`'s last.
    const joined = walk.first !== 1 && walk.first === kept.last + 1 ? 1 : 0;
    kept.steps += walk.steps + joined;
    kept.jumps += walk.jumps - joined;
    kept.last = walk.last;
  }
  return into;
}

/** Every client's usage, built one request at a time. */
export class UsageBuilder {
  private readonly clients = new Map<string, ClientUsage>();

  add(f: AccessFacts): void {
    if (!counted(f)) return;
    const subject = f.subject!;
    let u = this.clients.get(subject);
    if (!u) this.clients.set(subject, (u = emptyUsage(subject)));
    countRequest(u, f);
  }

  /** A comparison of one of the client's v1 answers: made (`matched` or not), or one JSON path that differed. */
  compared(subject: string, f: { matched: boolean } | { jsonPath: string }): void {
    let u = this.clients.get(subject);
    if (!u) this.clients.set(subject, (u = emptyUsage(subject)));
    const parity = u.compared;
    if ('matched' in f) {
      parity.answers++;
      if (!f.matched) parity.differed++;
      return;
    }
    const full = !(f.jsonPath in parity.paths) && Object.keys(parity.paths).length >= MAX_PATHS;
    bump(parity.paths, full ? 'other' : f.jsonPath);
  }

  /** The clients, most v1 calls first. */
  result(): ClientUsage[] {
    return [...this.clients.values()].sort((a, b) => b.calls.v1 - a.calls.v1 || a.subject.localeCompare(b.subject));
  }
}
