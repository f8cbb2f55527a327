/**
 * A client's migration plan: what its own v1 calls must change to move to v2, item by item, each
 * tied to the v1 change that causes it (the names of `src/versions/v1/` and of
 * docs/migrating-to-v2.md), with the client's own numbers. Only what applies to that client is
 * listed. Pure: the usage comes from the access lines, the examples from the caller.
 */
import { ERROR_CODES } from '../../core/error-codes';
import type { ClientUsage, V1Place } from './usage';

export type PlanStatus = 'not started' | 'started' | 'moved' | 'at risk';

/** A client with no v1 call in this long has moved, unless told another date (the report's `--moved-since`). */
export const MOVED_AFTER_MS = 7 * 86_400_000;

/** A before/after pair from real data, each side as text. */
export interface PlanExample {
  caption: string;
  v1: string;
  v2: string;
}

export interface PlanItem {
  /** The v1 change that causes it (`legacy-credentials`, `pages-of-ten`, ...), or `base-path` for v1's bases. */
  change: string;
  /** What to do, in one sentence. */
  action: string;
  /** The client's own numbers behind it. */
  evidence: Record<string, unknown>;
  /** Keys in URLs: to do, and to rotate, first. */
  urgent?: true;
  example?: PlanExample;
}

export interface MigrationPlan {
  subject: string;
  contact: string | null;
  status: PlanStatus;
  calls: ClientUsage['calls'];
  first_v1_call: string | null;
  last_v1_call: string | null;
  first_v2_call: string | null;
  brownout_hits: number;
  /** Its v1 answers compared with the legacy backend, where comparisons ran (else null). */
  parity: ClientUsage['compared'] | null;
  items: PlanItem[];
}

export interface PlanContext {
  /** A client with no v1 call at or after this instant (RFC 3339) has moved. */
  movedSince: string;
  /** `V1_SUNSET`, RFC 3339. */
  sunset: string;
  contact?: string | null;
  /**
   * A real example of `change` on a record of `route`'s resource, or undefined where the change
   * leaves that route's answers as they are (then the change does not apply to it).
   */
  example(change: string, route: string): PlanExample | undefined;
}

/** The route of a template on another base: `GET /species/{id}` -> `GET /v2/species/{id}`. */
const onV2 = (route: string) => route.replace(' /', ' /v2/');

const PLACE_ADVICE: Record<V1Place, string> = {
  'query:key': '`?key=` in the URL',
  'query:token': '`?token=` in the URL',
  'x-api-key': 'the `x-api-key` header',
  'x-key': 'the `x-key` header',
  'authorization:apikey': '`Authorization: ApiKey`',
  'authorization:bearer': '`Authorization: Bearer`',
};

/** The v2 codes an error status stands for, to branch on instead of `statusCode` and `message`. */
export function codesOf(status: number): string[] {
  return Object.entries(ERROR_CODES)
    .filter(([code, e]) => e.status === status && !code.startsWith('oauth/'))
    .map(([code]) => code);
}

/** not started / started / moved / at risk, from the client's calls. */
export function planStatus(u: ClientUsage, movedSince: string): PlanStatus {
  if (u.last_v1_call === null || u.last_v1_call < movedSince) return 'moved';
  if (u.brownout_hits > 0) return 'at risk';
  return u.calls.v2 > 0 ? 'started' : 'not started';
}

function credentialItems(u: ClientUsage): PlanItem[] {
  const header = u.subject.startsWith('member:') ? 'Authorization: Bearer <token>' : 'Authorization: ApiKey <key>';
  const items: PlanItem[] = [];
  for (const place of ['query:key', 'query:token', 'x-api-key', 'x-key'] as const) {
    const calls = u.places[place];
    if (!calls) continue;
    const inUrl = place.startsWith('query:');
    items.push({
      change: 'legacy-credentials',
      action: `Send \`${header}\` instead of ${PLACE_ADVICE[place]}: v2 refuses every other place.${
        inUrl ? ' The secret has been in URLs (proxy logs, browser histories): rotate it once you have moved.' : ''
      }`,
      evidence: { place, calls },
      ...(inUrl ? { urgent: true as const } : {}),
    });
  }
  return items;
}

function routeItems(u: ClientUsage, ctx: PlanContext): PlanItem[] {
  const items: PlanItem[] = [];
  const bases = Object.keys(u.bases).sort();
  items.push({
    change: 'base-path',
    action: `Call \`/v2\` instead of ${bases.map((b) => `\`${b}\``).join(' and ')}: every v1 route is in v2 at the same path below the base.`,
    evidence: {
      bases: u.bases,
      routes: Object.entries(u.routes)
        .filter(([route]) => route !== 'unmatched')
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .map(([route, calls]) => ({ route, calls, v2: onV2(route) })),
    },
  });
  const routes = Object.keys(u.routes).filter((r) => r !== 'unmatched');
  const enumerations = routes.filter((r) => r.split('/').length > 3);
  if (enumerations.length > 0) {
    items.push({
      change: 'no-enumerations',
      action: `${enumerations.map((r) => `\`${r}\``).join(', ')} answered 404 in v1; in v2 they list the children: call ${enumerations.map((r) => `\`${onV2(r)}\``).join(', ')}.`,
      evidence: { routes: Object.fromEntries(enumerations.map((r) => [r, u.routes[r]])) },
    });
  }
  const collections = routes.filter((r) => !r.endsWith('{id}') && !enumerations.includes(r));
  const details = routes.filter((r) => r.endsWith('{id}'));
  for (const [route, walk] of Object.entries(u.walks)) {
    if (!collections.includes(route)) continue;
    const pages = Object.keys(walk.pages)
      .filter((p) => p !== 'other')
      .map(Number)
      .sort((a, b) => a - b);
    const byLinks = walk.jumps === 0;
    items.push({
      change: 'pages-of-ten',
      action: byLinks
        ? `\`${route}\` is walked by \`links.next\` from page 1: nothing changes but the page size (20 records a page, half as many requests).`
        : `\`${route}\` asks for page numbers: v2 pages hold 20 records, so v1 page p holds the records of v2 page \`ceil(p/2)\` (its first half for odd p, its second half for even p); or follow \`links.next\`.`,
      evidence: {
        route,
        walks_by_links: byLinks,
        pages: pages.map((p) => ({ v1_page: p, calls: walk.pages[String(p)], v2_page: Math.ceil(p / 2), half: p % 2 === 1 ? 'first' : 'second' })),
        ...(walk.pages.other ? { deeper_pages_calls: walk.pages.other } : {}),
      },
      ...exampleOf(ctx, 'pages-of-ten', route),
    });
  }
  // Each shape change applies to the routes whose answers it rewrites; its example is the first one's.
  const shapes: Array<[string, string[]]> = [
    ['total-only-meta', collections],
    ['bare-detail', details],
    ...RECORD_CHANGES.map((change): [string, string[]] => [change, routes.filter((r) => ctx.example(change, r) !== undefined)]),
  ];
  for (const [change, applies] of shapes) {
    if (applies.length === 0) continue;
    items.push({ change, action: SHAPE_ACTIONS[change]!, evidence: { routes: applies }, ...exampleOf(ctx, change, applies[0]!) });
  }
  return items;
}

/** The changes that rewrite records, wherever a route returns records that have their fields. */
const RECORD_CHANGES = ['uppercase-enums', 'flower-or-seed', 'language-names'];

const SHAPE_ACTIONS: Record<string, string> = {
  'total-only-meta': 'Read `meta.total`, `meta.per_page`, `meta.current_page` and `meta.last_page` of v2 collections (v1 gave `meta.total` only).',
  'bare-detail': "Read a v2 detail's record from `data` (and its `meta`): v1 sent the bare record.",
  'uppercase-enums':
    'Compare `rank`, `status` and `duration` in lower case: v2 sends `species`, `accepted`, `perennial` where v1 sent `SPECIES`, `ACCEPTED`, `PERENNIAL`.',
  'flower-or-seed': 'Read `fruit_or_seed` where v1 had `flower_or_seed` (same values).',
  'language-names': 'Read `common_names` keyed by language code (`en`, `fr`) where v1 keyed them by language name (`English`, `French`).',
};

function exampleOf(ctx: PlanContext, change: string, route: string): { example?: PlanExample } {
  const example = ctx.example(change, route);
  return example ? { example } : {};
}

function errorItem(u: ClientUsage): PlanItem[] {
  const statuses = Object.keys(u.errors)
    .map(Number)
    .filter((s) => s !== 410)
    .sort((a, b) => a - b);
  if (statuses.length === 0) return [];
  return [
    {
      change: 'legacy-errors',
      action: 'Branch on the problem+json `code` (and `status`) of v2 errors, not on `statusCode` or the `message` sentence.',
      evidence: { errors: statuses.map((status) => ({ status, calls: u.errors[String(status)], v2_codes: codesOf(status) })) },
    },
  ];
}

function deprecationItem(u: ClientUsage, ctx: PlanContext): PlanItem {
  return {
    change: 'deprecation',
    action: `Move before ${ctx.sunset}: from then on every v1 call answers 410.${
      u.brownout_hits > 0 ? ` ${u.brownout_hits} of your v1 calls already met a brownout's 410: that is what the sunset will give.` : ''
    }`,
    evidence: { sunset: ctx.sunset, brownout_hits: u.brownout_hits, last_v1_call: u.last_v1_call },
  };
}

/** The plan of one client: empty when it made no v1 call. */
export function migrationPlan(u: ClientUsage, ctx: PlanContext): MigrationPlan {
  // A client with no v1 call has nothing to change (one that reads its plan before any call, or has moved).
  const items = u.calls.v1 === 0 ? [] : [...credentialItems(u), ...routeItems(u, ctx), ...errorItem(u), deprecationItem(u, ctx)];
  // Keys in URLs first, then the rest in the guide's order.
  items.sort((a, b) => Number(b.urgent ?? false) - Number(a.urgent ?? false));
  return {
    subject: u.subject,
    contact: ctx.contact ?? null,
    status: planStatus(u, ctx.movedSince),
    calls: u.calls,
    first_v1_call: u.first_v1_call,
    last_v1_call: u.last_v1_call,
    first_v2_call: u.first_v2_call,
    brownout_hits: u.brownout_hits,
    parity: u.compared.answers > 0 ? u.compared : null,
    items,
  };
}
