/**
 * The before/after examples of the clients' migration plans, computed from the bundled dataset by
 * the gateway's own v1 changes; `npm run docs:migration` writes them beside the guide, and its test
 * fails when the committed file differs.
 */
import { fileURLToPath } from 'node:url';
import { parseConfig } from '../../src/config';
import { collectionEnvelope } from '../../src/core/envelope';
import type { Dataset } from '../../src/core/records';
import type { PlanExample } from '../../src/migration/plan/plan';
import { BundledSource } from '../../src/services/bundled/bundled-source';
import type { ResourceName } from '../../src/services/record-source';
import { v1 } from '../../src/versions/v1/index';
import type { JsonObject } from '../../src/versions/version';
import { changed, pretty } from '../examples-format';

export const EXAMPLES_FILE = fileURLToPath(new URL('../../src/migration/plan/examples.json', import.meta.url));
/** Records with every field a change touches, where the resource has them (the guide's own choice for species). */
const SAMPLE_IDS: Partial<Record<ResourceName, string>> = { species: 'COFL2', plants: 'COFL2', families: 'Cornaceae', genus: 'Cornus' };

/** Every example a plan may show, keyed `change route`: written to `src/migration/plan/examples.json`. */
export async function planExamples(dataset: Dataset): Promise<Record<string, PlanExample>> {
  const source = new BundledSource(dataset);
  const changes = new Map(v1(parseConfig({})).changes.map((c) => [c.name, c]));
  const examples = new Map<string, Promise<PlanExample | undefined>>();
  const compute = async (name: string, route: string): Promise<PlanExample | undefined> => {
    const change = changes.get(name);
    const path = route.slice(route.indexOf(' ') + 1);
    const resource = path.split('/')[1] as ResourceName;
    const id = SAMPLE_IDS[resource];
    if (!change || !id) return undefined;
    const found = await source.get(resource, id);
    if (!found) return undefined;
    const record = found.record as unknown as JsonObject;
    if (change.record) {
      const [a, b] = changed(change.record(record, resource), record);
      if (Object.keys(a).length === 0 && Object.keys(b).length === 0) return undefined;
      return { caption: `\`GET /${resource}/${id}\`, the fields that differ`, v1: pretty({ id, ...a }), v2: pretty({ id, ...b }) };
    }
    if (change.detail && path.endsWith('{id}')) {
      const v2 = { data: record, meta: found.meta } as unknown as JsonObject;
      return { caption: `\`GET /${resource}/${id}\``, v1: pretty(change.detail(v2)), v2: pretty(v2) };
    }
    if ((change.collection || change.page) && !path.endsWith('{id}')) {
      const core = (await source.list(resource, { q: undefined, order: [], page: 1 }, undefined))!;
      const page = { ...core, items: (core.items as unknown as JsonObject[]).slice(0, 2) };
      const v2 = collectionEnvelope({ ...page, total: core.total }, `/v2/${resource}`, `https://host/v2/${resource}?page=1`);
      if (change.collection) {
        const [a, b] = changed(change.collection(v2), v2);
        return { caption: `\`GET /${resource}\`, the members that differ`, v1: pretty(a), v2: pretty(b) };
      }
      return {
        caption: `\`GET /${resource}?page=3\` in v1 is the first half of \`GET /${resource}?page=2\` in v2`,
        v1: `page=3: records 21-30 of ${core.total}, 10 a page`,
        v2: `page=2: records 21-40 of ${core.total}, 20 a page`,
      };
    }
    return undefined;
  };
  // Computed ahead for every route v1 has, so a plan reads them synchronously.
  for (const name of changes.keys()) {
    for (const resource of Object.keys(SAMPLE_IDS)) {
      for (const route of [`GET /${resource}`, `GET /${resource}/{id}`]) examples.set(`${name} ${route}`, compute(name, route));
    }
  }
  const out: Record<string, PlanExample> = {};
  for (const [key, value] of examples) {
    const found = await value;
    if (found) out[key] = found;
  }
  return out;
}
