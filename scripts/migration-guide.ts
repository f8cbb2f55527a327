/**
 * Writes `docs/migrating-to-v2.md` (`npm run docs:migration`): for each v1 change, in order, its
 * name, its sentence, and a v1 / v2 example computed by applying that very change to real fixture
 * data. A test regenerates it and fails when the committed guide differs, so it cannot drift.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseConfig, type Config } from '../src/config';
import { collectionEnvelope } from '../src/core/envelope';
import { parseListQuery } from '../src/core/list-query';
import type { Dataset } from '../src/core/records';
import { ENUMERATIONS } from '../src/core/resources';
import { ApiError } from '../src/core/api-error';
import { problemJson } from '../src/policies/render-error';
import { BundledSource } from '../src/services/bundled/bundled-source';
import type { ListQuery, RecordSource } from '../src/services/record-source';
import { v1 } from '../src/versions/v1/index';
import type { JsonObject, RenderedError, VersionChange } from '../src/versions/version';
import { CORE_CREDENTIALS } from '../src/versions/walker';
import { changed, pretty } from './examples-format';
import { MIGRATION_PLAN_PATH } from '../src/core/route-template';
import { EXAMPLES_FILE, planExamples } from './report/plan-examples';

export const GUIDE_FILE = fileURLToPath(new URL('../docs/migrating-to-v2.md', import.meta.url));
const FIXTURE_FILE = fileURLToPath(new URL('../fixtures/taxa.json', import.meta.url));

/** The real data the examples are computed from. */
const RECORD_ID = 'COFL2'; // Cornus florida: durations, traits, names in en, fr and ciw (which ICU cannot name)
const DETAIL = { resource: 'families', id: 'Cornaceae' } as const;
const SEARCH = 'oak'; // 316 species: 16 v2 pages, 32 v1 pages
const REQUEST_ID = '00000000-0000-4000-8000-000000000000';

interface Example {
  caption: string;
  lang: 'json' | 'http' | 'text';
  v1: string;
  v2: string;
}

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

const httpResponse = (status: string, headers: Headers, body?: RenderedError) =>
  [`HTTP/1.1 ${status}`, ...[...headers].map(([k, v]) => `${k.replace(/(^|-)[a-z]/g, (s) => s.toUpperCase())}: ${v}`)]
    .concat(body ? [`Content-Type: ${body.contentType}`, '', pretty(body.body)] : [])
    .join('\n');

async function examples(change: VersionChange, source: RecordSource, config: Config): Promise<Example[]> {
  const ctx = { requestId: REQUEST_ID };
  const out: Example[] = [];
  if (change.credentials) {
    out.push({
      caption: 'Accepted credential places and `Authorization` schemes, first present wins',
      lang: 'json',
      v1: pretty(change.credentials(CORE_CREDENTIALS)),
      v2: pretty(CORE_CREDENTIALS),
    });
  }
  if (change.detail) {
    const found = (await source.get(DETAIL.resource, DETAIL.id, ctx))!;
    const v2 = { data: found.record as unknown as JsonObject, meta: found.meta };
    out.push({ caption: `\`GET /${DETAIL.resource}/${DETAIL.id}\``, lang: 'json', v1: pretty(change.detail(v2)), v2: pretty(v2) });
  }
  if (change.record) {
    const found = (await source.get('species', RECORD_ID, ctx))!;
    const v2 = found.record as unknown as JsonObject;
    const [a, b] = changed(change.record(v2, 'species'), v2);
    out.push({
      caption: `\`GET /species/${RECORD_ID}\`, the fields that differ`,
      lang: 'json',
      v1: pretty({ id: RECORD_ID, ...a }),
      v2: pretty({ id: RECORD_ID, ...b }),
    });
  }
  if (change.listQuery || change.page) {
    const asked: ListQuery = { q: SEARCH, order: [], page: 3 };
    const coreQuery = change.listQuery?.(asked) ?? asked;
    const core = (await source.list('species', coreQuery, undefined, ctx))!;
    const corePage = { ...core, items: core.items as unknown as JsonObject[] };
    const page = change.page?.(corePage, asked) ?? corePage;
    const show = (p: typeof page) => pretty({ page: p.page, per_page: p.perPage, total: p.total, ids: p.items.map((r) => r.id) });
    out.push({
      caption: `v1 page ${asked.page} is read from v2 page ${coreQuery.page}: \`GET /v1/species?q=${SEARCH}&page=${asked.page}\` against \`GET /v2/species?q=${SEARCH}&page=${coreQuery.page}\``,
      lang: 'json',
      v1: show(page),
      v2: show(corePage),
    });
  }
  if (change.collection) {
    const core = (await source.list('species', { q: SEARCH, order: [], page: 1 }, undefined, ctx))!;
    const v2 = collectionEnvelope({ ...core, items: core.items as unknown as JsonObject[] }, '/v2/species', `https://host/v2/species?q=${SEARCH}`);
    const [a, b] = changed(change.collection(v2), v2);
    out.push({ caption: `\`GET /species?q=${SEARCH}\`, the members that differ`, lang: 'json', v1: pretty(a), v2: pretty(b) });
  }
  if (change.error) {
    let error: ApiError | undefined;
    try {
      parseListQuery(new URLSearchParams('page=0'), 'species');
    } catch (err) {
      error = err as ApiError;
    }
    out.push({
      caption: '`GET /species?page=0`',
      lang: 'http',
      v1: httpResponse(`${error!.status}`, new Headers(), change.error(error!)),
      v2: httpResponse(`${error!.status}`, new Headers(), problemJson(error!, config, REQUEST_ID)),
    });
  }
  if (change.withoutEnumerations) {
    const routes = (status: number) => ENUMERATIONS.map(({ parent, child }) => `GET /${parent}/{id}/${child}  ->  ${status}`).join('\n');
    out.push({ caption: 'The enumeration routes', lang: 'text', v1: routes(404), v2: routes(200) });
  }
  if (change.withoutMigrationPlan) {
    out.push({
      caption: "The caller's own migration plan",
      lang: 'text',
      v1: `GET /v1${MIGRATION_PLAN_PATH}  ->  404`,
      v2: `GET /v2${MIGRATION_PLAN_PATH}  ->  200, this credential's plan (the same key, sent as Authorization: ApiKey <key>)`,
    });
  }
  if (change.withoutCors) {
    const preflight = 'OPTIONS /species with Origin and Access-Control-Request-Method (a CORS preflight)';
    out.push({
      caption: 'Calls from a browser page on another origin',
      lang: 'text',
      v1: `${preflight}\n  -> not answered: no Access-Control-* headers, the browser blocks the call`,
      v2: `${preflight}\n  -> 204, Access-Control-Allow-Origin: *, Authorization allowed (member tokens only; API keys stay server-side)`,
    });
  }
  if (change.headers) {
    const v1Headers = new Headers();
    change.headers(v1Headers);
    out.push({
      caption: 'Headers added to every response (success, error, 304, HEAD)',
      lang: 'http',
      v1: httpResponse('200 OK', v1Headers),
      v2: httpResponse('200 OK', new Headers()),
    });
  }
  if (change.retiredAt !== undefined) {
    const gone = new ApiError('svc/gone');
    out.push({
      caption: `Every request from ${iso(change.retiredAt)} on`,
      lang: 'text',
      v1: `${gone.status} ${gone.title} (${gone.code})`,
      v2: 'served as usual',
    });
  }
  return out;
}

/** The whole guide, from the v1 changes as configured by default and the given dataset. */
export async function migrationGuide(dataset: Dataset): Promise<string> {
  const config = parseConfig({});
  const source = new BundledSource(dataset);
  const version = v1(config);
  const lines = [
    '# Migrating from v1 to v2',
    '',
    '<!-- Generated by `npm run docs:migration` from src/versions/v1/*.ts; do not edit by hand. -->',
    '',
    `v1 is deprecated since ${iso(config.v1DeprecatedAt)} and stops serving on ${iso(config.v1Sunset)}`,
    '(the defaults of `V1_DEPRECATED_AT` and `V1_SUNSET`). Everything v1 serves is in v2 at the same paths: replace `/v1` or',
    '`/api/v1` with `/v2`. Search (`q`), order (`order[...]`) and pagination give the same records in the same order; trait',
    'tokens (flower, foliage and fruit colours) and `growth_rate` stay UPPERCASE in both versions.',
    '',
    `Each section below is one change of v1 against v2, in the order the gateway applies them. The examples are computed`,
    `by applying that change alone to real records of the bundled dataset.`,
  ];
  for (const [i, change] of version.changes.entries()) {
    lines.push('', `## ${i + 1}. \`${change.name}\``, '', change.description, '', `Source: \`src/versions/v1/${change.name}.ts\``);
    for (const ex of await examples(change, source, config)) {
      lines.push('', `${ex.caption}:`, '', 'v1:', '', `\`\`\`${ex.lang}`, ex.v1, '```', '', 'v2:', '', `\`\`\`${ex.lang}`, ex.v2, '```');
    }
  }
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dataset = JSON.parse(readFileSync(FIXTURE_FILE, 'utf8')) as Dataset;
  writeFileSync(GUIDE_FILE, await migrationGuide(dataset));
  writeFileSync(EXAMPLES_FILE, `${JSON.stringify(await planExamples(dataset), null, 2)}\n`);
  console.log(`wrote ${GUIDE_FILE} and ${EXAMPLES_FILE}`);
}
