/**
 * A stand-in for the existing v1 backend, for legacy-mode and comparison tests: a real HTTP
 * server on 127.0.0.1 serving v1 over the bundled dataset. It finds records through the same
 * dataset index (the spec says search, ordering and paging behave the same in both versions), but
 * every v1 shape is written out here from the spec's "Differences from v1 to v2" table, sharing
 * nothing with the gateway's version changes, so the facade is compared with something it did
 * not produce. Differences can be injected, one per route, to prove the comparison finds them.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError } from '../../src/core/api-error';
import { parseListQuery } from '../../src/core/list-query';
import type { ResourceName } from '../../src/services/record-source';
import { bundledSource } from './harness';

/** Differences a test can switch on, each on one route. */
export const INJECTIONS = {
  /** `GET /species`: the fruit block keeps its v2 name. */
  renamedField: 'GET /species',
  /** `GET /plants`: the first two records of a page swapped. */
  outOfOrder: 'GET /plants',
  /** `GET /genus`: `meta.total` one too many. */
  totalOffByOne: 'GET /genus',
  /** `GET /species/{id}`: `rank` left lowercase. */
  lowercaseRank: 'GET /species/{id}',
  /** `GET /families/{id}`: another sentence in the 404 body. */
  different404: 'GET /families/{id}',
  /** `GET /species/{id}`: `common_name` and the French names of `common_names` in upper case. */
  upperCaseNames: 'GET /species/{id}',
} as const;
export type Injection = keyof typeof INJECTIONS;

export interface LegacyV1 {
  /** The base URL including its version segment, as `LEGACY_V1_URL` takes it. */
  url: string;
  /** Every request received: path and query, and headers. */
  seen: { url: string; headers: IncomingHttpHeaders }[];
  /** The differences switched on. */
  inject: Set<Injection>;
  /** When set, answers every request with this instead (an outage, a hang). */
  fault: ((res: import('node:http').ServerResponse) => void) | undefined;
  close(): Promise<void>;
}

export const LEGACY_BASE_PATH = '/api/v1';
/** The only credential the backend accepts: the gateway's own (`LEGACY_V1_AUTHORIZATION`). */
export const LEGACY_AUTHORIZATION = 'Bearer legacy-backend-secret-of-the-gateway';

const RESOURCES = new Set(['species', 'genus', 'families', 'plants']);
const PER_PAGE = 10;
const languages = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' });

function englishName(code: string): string {
  try {
    return languages.of(code) ?? code;
  } catch {
    return code;
  }
}

/** A v2 record as v1 spelled it. */
function v1Record(resource: ResourceName, v2: Record<string, any>, inject: Set<Injection>, detail: boolean): Record<string, unknown> {
  if (resource !== 'species') return { ...v2 };
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(v2)) {
    if (field === 'fruit_or_seed' && !(inject.has('renamedField') && !detail)) out.flower_or_seed = value;
    else if (field === 'rank' && inject.has('lowercaseRank') && detail) out.rank = value;
    else if (field === 'rank' || field === 'status') out[field] = String(value).toUpperCase();
    else if (field === 'common_name' && inject.has('upperCaseNames') && detail) out.common_name = value === null ? null : String(value).toUpperCase();
    else if (field === 'duration') out.duration = value === null ? null : (value as string[]).map((d) => d.toUpperCase());
    else if (field === 'common_names') {
      const names: Record<string, string[]> = {};
      for (const [code, list] of Object.entries(value as Record<string, string[]>)) {
        const key = englishName(code);
        names[key] = [...(names[key] ?? []), ...list.filter((n) => !(names[key] ?? []).includes(n))];
      }
      if (inject.has('upperCaseNames') && detail && names.French) names.French = names.French.map((n) => n.toUpperCase());
      out.common_names = names;
    } else out[field] = value;
  }
  return out;
}

/** `links` over the caller's own query, `page` replaced where it stood (or added last). */
function links(origin: string, path: string, rawQuery: string, page: number, last: number): Record<string, string> {
  const pairs = rawQuery === '' ? [] : rawQuery.split('&').filter(Boolean);
  const at = pairs.findIndex((p) => decodeURIComponent(p.split('=')[0]!.replace(/\+/g, ' ')) === 'page');
  const others = pairs.filter((p) => decodeURIComponent(p.split('=')[0]!.replace(/\+/g, ' ')) !== 'page');
  const link = (n: number) => {
    const q = [...others];
    q.splice(at < 0 ? q.length : at, 0, `page=${n}`);
    return `${origin}${path}?${q.join('&')}`;
  };
  const out: Record<string, string> = { self: link(page) };
  if (last === 0) return out;
  out.first = link(1);
  if (page > 1) out.prev = link(page - 1);
  if (page < last) out.next = link(page + 1);
  out.last = link(last);
  return out;
}

class LegacyError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function answer(
  target: URL,
  rawQuery: string,
  origin: string,
  inject: Set<Injection>,
): Promise<{ status: number; body: unknown; lastModified?: string }> {
  const below = target.pathname.slice(LEGACY_BASE_PATH.length);
  const [, resource, id, ...rest] = below.split('/');
  if (!target.pathname.startsWith(`${LEGACY_BASE_PATH}/`) || !resource || !RESOURCES.has(resource) || rest.length > 0 || id === '') {
    throw new LegacyError(404, `No resource at ${target.pathname}.`);
  }
  const source = bundledSource();
  const name = resource as ResourceName;
  if (id !== undefined) {
    const found = await source.get(name, decodeURIComponent(id));
    if (!found) {
      const message =
        inject.has('different404') && name === 'families'
          ? `Family ${decodeURIComponent(id)} not found`
          : `No ${name} record has id "${decodeURIComponent(id)}".`;
      throw new LegacyError(404, message);
    }
    return { status: 200, body: v1Record(name, found.record as any, inject, true), lastModified: new Date(source.lastModified).toUTCString() };
  }
  let query: ReturnType<typeof parseListQuery>;
  try {
    query = parseListQuery(target.searchParams, name);
  } catch (err) {
    if (err instanceof ApiError) throw new LegacyError(400, err.detail ?? err.title);
    throw err;
  }
  // The dataset index reads in pages of 20; a v1 page of 10 is one half of one of them.
  const wide = await source.list(name, { ...query, page: Math.ceil(query.page / 2) }, undefined);
  const total = wide!.total;
  const last = Math.ceil(total / PER_PAGE);
  if (query.page > Math.max(last, 1)) throw new LegacyError(404, `Page ${query.page} is past the last page (${last}).`);
  const start = ((query.page - 1) % 2) * PER_PAGE;
  const data = wide!.items.slice(start, start + PER_PAGE).map((r) => v1Record(name, r as any, inject, false));
  if (inject.has('outOfOrder') && name === 'plants' && data.length > 1) [data[0], data[1]] = [data[1]!, data[0]!];
  return {
    status: 200,
    body: {
      data,
      links: links(origin, target.pathname, rawQuery, query.page, last),
      meta: { total: inject.has('totalOffByOne') && name === 'genus' ? total + 1 : total },
    },
  };
}

/**
 * Starts the legacy backend on a loopback port (`port`, else a free one). `memo` keeps every answer by URL, so that a
 * benchmark measures the gateway rather than this stand-in (which shares the machine).
 */
export async function legacyV1(options: { memo?: boolean; port?: number } = {}): Promise<LegacyV1> {
  const memo = new Map<string, Promise<{ status: number; body: unknown; lastModified?: string }>>();
  const legacy = { seen: [], inject: new Set(), fault: undefined } as unknown as LegacyV1;
  let origin = '';
  const server: Server = createServer((req, res) => {
    legacy.seen.push({ url: req.url!, headers: req.headers });
    if (legacy.fault) return legacy.fault(res);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      const text = JSON.stringify(body);
      res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
      res.end(text);
    };
    if (req.headers.authorization !== LEGACY_AUTHORIZATION) return send(401, { statusCode: 401, message: 'Unauthorized' });
    const raw = req.url!;
    const q = raw.indexOf('?');
    const answered = memo.get(raw) ?? answer(new URL(raw, origin), q < 0 ? '' : raw.slice(q + 1), origin, legacy.inject);
    if (options.memo) memo.set(raw, answered);
    answered
      .then((a) => send(a.status, a.body, a.lastModified ? { 'Last-Modified': a.lastModified } : {}))
      .catch((err) =>
        err instanceof LegacyError
          ? send(err.status, { statusCode: err.status, message: err.message })
          : send(500, { statusCode: 500, message: 'Internal Server Error' }),
      );
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(options.port ?? 0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  legacy.url = origin + LEGACY_BASE_PATH;
  legacy.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return legacy;
}
