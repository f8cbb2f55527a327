/**
 * The descriptions agree with the traffic because each version change carries both. Here each
 * change's description edit is removed in turn (its traffic edit kept), and the disagreement must
 * show: either real responses of the gateway stop matching the description, or a fact the walker
 * serves (credential places, page size, routes, the migration plan, CORS, retirement, preview) stops matching it.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config';
import { ENUMERATIONS, RESOURCE_NAMES } from '../../../src/core/resources';
import { describeVersion, coreDocument } from '../../../src/openapi/document';
import { versionOperations, securedOperations } from '../../../src/openapi/edit';
import { collectionSchema, enumerationPath, MIGRATION_PLAN_PATH } from '../../../src/openapi/names';
import type { JsonSchema, OpenApiDocument } from '../../../src/openapi/types';
import { buildVersions } from '../../../src/versions';
import type { Version } from '../../../src/versions/version';
import { walk } from '../../../src/versions/walker';
import { OpenApiValidator } from '../../support/openapi-validator';
import { DEMO, testApp } from '../../support/harness';

const config = parseConfig({});
const VERSIONS = buildVersions(config);
const core = coreDocument(config);

/** Requests whose responses show each v1 and v3 difference. */
const REQUESTS: Array<{ path: string; headers?: Record<string, string>; method?: string; retired?: true }> = [
  { path: '/v1/species?q=abies' },
  { path: '/v1/species/ABBA' },
  { path: '/v1/species/NO-SUCH-ID' },
  { path: '/v1/species', headers: { Origin: 'https://x.example', 'Access-Control-Request-Method': 'GET' }, method: 'OPTIONS' },
  { path: '/v1/species', retired: true },
  { path: '/v3/species', headers: { Authorization: DEMO.personalToken } },
  { path: '/v2/species/ABBA', method: 'PUT' },
  { path: '/v2/migration-plan' },
  { path: '/v1/migration-plan' },
];

/** The facts the walker serves a version by, compared with what its description says. */
function factProblems(version: Version, doc: OpenApiDocument): string[] {
  const problems: string[] = [];
  const rules = walk.credentials(version);
  const schemes = doc.security.flatMap((r) => Object.keys(r)).map((name) => doc.components.securitySchemes[name]!);
  const places = new Set(
    schemes.map((s) => (s.type === 'apiKey' && s.name !== 'Authorization' ? `${s.in === 'query' ? 'query:' : ''}${s.name}` : 'authorization')),
  );
  if ([...places].sort().join() !== [...rules.places].sort().join()) problems.push(`credential places ${[...places]} vs served ${rules.places}`);
  const apiKey = schemes.some((s) => s.type === 'apiKey');
  if (apiKey !== rules.schemes.includes('apikey')) problems.push(`API keys described: ${apiKey}, accepted: ${rules.schemes.includes('apikey')}`);
  const served = walk.page(version, { items: [], total: 0, page: 1, perPage: 20 }, { q: undefined, order: [], page: 1 }).perPage;
  for (const resource of RESOURCE_NAMES) {
    const maxItems = (doc.components.schemas[collectionSchema(resource)]!.properties as Record<string, JsonSchema>).data!.maxItems;
    if (maxItems !== served) problems.push(`${resource} pages of ${maxItems} described, ${served} served`);
  }
  for (const enumeration of ENUMERATIONS) {
    if (enumerationPath(enumeration) in doc.paths !== walk.hasEnumerations(version)) problems.push(`${enumerationPath(enumeration)} described wrongly`);
  }
  if (MIGRATION_PLAN_PATH in doc.paths !== walk.hasMigrationPlan(version)) problems.push(`${MIGRATION_PLAN_PATH} described wrongly`);
  const retired = walk.retiredAt(version) !== undefined;
  for (const { path, method, operation } of versionOperations(doc)) {
    if (retired !== (operation.deprecated === true && '410' in operation.responses)) problems.push(`${method} ${path}: deprecation described wrongly`);
  }
  for (const { path, method, operation } of securedOperations(doc)) {
    if (walk.previewOnly(version) && !('403' in operation.responses)) problems.push(`${method} ${path}: the preview's 403 is not described`);
  }
  if (walk.previewOnly(version) !== doc.info.description.includes('**Closed preview**')) problems.push('the closed preview described wrongly');
  const preflights = securedOperations(doc)
    .filter(({ method }) => method === 'get')
    .map(({ path }) => doc.paths[path]!.options);
  if (preflights.some((op) => (op !== undefined && '204' in op.responses) !== walk.answersCors(version))) problems.push('CORS described wrongly');
  return problems;
}

/** What is wrong with the gateway's real responses, judged by the given descriptions. */
async function responseProblems(docs: Map<string, OpenApiDocument>): Promise<string[]> {
  const validator = new OpenApiValidator(docs);
  const now = testApp({ describes: false });
  const retired = testApp({ describes: false, now: '2027-08-01T00:00:00Z' });
  const problems: string[] = [];
  for (const request of REQUESTS) {
    const url = `https://localhost${request.path}`;
    const app = request.retired ? retired : now;
    const res = await app.get(request.path, request.headers ?? { Authorization: DEMO.key }, { method: request.method ?? 'GET' });
    problems.push(...validator.problems(request.method ?? 'GET', url, res, await res.text()));
  }
  return problems;
}

/** The descriptions of every version, with one change of one version altered. */
function describedWith(target: Version, name: string, describe: ((doc: OpenApiDocument) => void) | undefined): Map<string, OpenApiDocument> {
  const docs = new Map<string, OpenApiDocument>();
  for (const version of VERSIONS) {
    const changes = version === target ? version.changes.map((ch) => (ch.name === name ? { ...ch, describe } : ch)) : version.changes;
    for (const base of version.bases) docs.set(base, describeVersion(core, { ...version, changes }, base));
  }
  return docs;
}

describe('each version change describes what it serves', () => {
  it('as built, the real responses and the served facts agree with the descriptions', async () => {
    expect(await responseProblems(describedWith(VERSIONS[0]!, '', undefined))).toEqual([]);
    for (const version of VERSIONS) expect(factProblems(version, describeVersion(core, version, version.bases[0]!)), version.name).toEqual([]);
  });

  const changes = VERSIONS.flatMap((version) => version.changes.map((change) => ({ version, change })));
  it.each(changes.map(({ version, change }) => [`${version.name}/${change.name}`, version, change.name] as const))(
    '%s: without its description edit, the description and the traffic disagree',
    async (_label, version, name) => {
      const docs = describedWith(version, name, undefined);
      const problems = [...factProblems(version, docs.get(version.bases[0]!)!), ...(await responseProblems(docs))];
      expect(problems.length, `no disagreement found for ${name}`).toBeGreaterThan(0);
    },
  );

  it('a wrong description edit is caught by the responses too (flower-or-seed naming another key)', async () => {
    const v1 = VERSIONS.find((v) => v.name === 'v1')!;
    const wrong = (doc: OpenApiDocument) => {
      for (const resource of RESOURCE_NAMES) {
        const schema = doc.components.schemas[resource === 'species' ? 'Species' : 'x'];
        if (!schema) continue;
        const props = schema.properties as Record<string, JsonSchema>;
        props.flower_and_seed = props.fruit_or_seed!;
        delete props.fruit_or_seed;
        schema.required = (schema.required as string[]).map((k) => (k === 'fruit_or_seed' ? 'flower_and_seed' : k));
      }
    };
    const problems = await responseProblems(describedWith(v1, 'flower-or-seed', wrong));
    expect(problems.join('\n')).toMatch(/flower_and_seed/);
  });
});

describe('a method the path item does not describe', () => {
  const validator = new OpenApiValidator(describedWith(VERSIONS[0]!, '', undefined));
  const app = testApp({ describes: false });
  const problemsOf = async (method: string, path: string, edit?: (res: Response, text: string) => Response) => {
    const res = await app.get(path, {}, { method });
    const text = await res.text();
    const judged = edit ? edit(res, text) : res;
    return validator.problems(method, `https://localhost${path}`, judged, edit ? await judged.text() : text);
  };
  const withHeaders = (res: Response, text: string, change: (h: Headers) => void) => {
    const headers = new Headers(res.headers);
    change(headers);
    return new Response(text, { status: res.status, headers });
  };

  it.each([
    ['PUT', '/v2/species/ABBA'],
    ['DELETE', '/v1/species'],
    ['OPTIONS', '/api/v1/species/ABBA'],
    ['GET', '/oauth/token'],
    ['HEAD', '/oauth/token'],
  ])('%s %s: the real 405 is as described', async (method, path) => {
    expect(await problemsOf(method, path)).toEqual([]);
  });

  it('must get 405 with Allow naming exactly the described methods, in the version error shape', async () => {
    // HEAD is described, so leaving it out of Allow is wrong; so is naming OPTIONS where v1 has none.
    expect(await problemsOf('PUT', '/v2/species', (res, text) => withHeaders(res, text, (h) => h.set('Allow', 'GET, OPTIONS')))).not.toEqual([]);
    expect(await problemsOf('PUT', '/v1/species', (res, text) => withHeaders(res, text, (h) => h.set('Allow', 'GET, HEAD, OPTIONS')))).not.toEqual([]);
    expect(await problemsOf('PUT', '/v2/species', (res, text) => withHeaders(res, text, (h) => h.delete('Allow')))).not.toEqual([]);
    // v1's legacy body is not v2's problem, nor the other way round.
    const v2Body = await (await app.get('/v2/species', {}, { method: 'PUT' })).text();
    expect(await problemsOf('PUT', '/v1/species', (res) => new Response(v2Body, { status: 405, headers: res.headers }))).not.toEqual([]);
    // Any other answer than 405 (a 401, a 200) is not as described.
    expect(await problemsOf('PUT', '/v2/species', (res, text) => new Response(text, { status: 401, headers: res.headers }))).not.toEqual([]);
    expect(await problemsOf('PUT', '/v2/species', (res) => new Response('{}', { status: 200, headers: res.headers }))).not.toEqual([]);
  });
});
