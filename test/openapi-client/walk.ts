/**
 * A client of the v2 API as a developer would write one: `openapi-fetch` typed by the `paths`
 * that `openapi-typescript` generated from `/v2/openapi.json` (`v2.gen.ts`, written by
 * test/node/openapi/client.test.ts, git-ignored). That test type-checks this file against the
 * generated types before running it.
 */
import createClient from 'openapi-fetch';
import type { paths } from './v2.gen';

export interface Walk {
  ids: string[];
  total: number;
  /** The path and query of every request the client sent. */
  requested: string[];
  /** `links.next` of every page but the last. */
  nexts: string[];
}

/** Every page of a species search, following `links.next` until it is absent. */
export async function walkSpecies(baseUrl: string, apiKey: string, q: string): Promise<Walk> {
  const client = createClient<paths>({ baseUrl, headers: { Authorization: `ApiKey ${apiKey}` } });
  const walk: Walk = { ids: [], total: 0, requested: [], nexts: [] };
  let page: number | undefined = 1;
  while (page !== undefined) {
    const query: { q: string; page: number } = { q, page };
    const { data, response } = await client.GET('/species', { params: { query } });
    if (!data) throw new Error(`GET /species page ${page}: ${response.status}`);
    const url = new URL(response.url);
    walk.requested.push(`${url.pathname}${url.search}`);
    for (const record of data.data) {
      const rank: string = record.rank;
      const traits: boolean | null = record.fruit_or_seed.conspicuous;
      if (rank === '' || traits === undefined) throw new Error(`record ${record.id} is not a species record`);
      walk.ids.push(record.id);
    }
    walk.total = data.meta.total;
    const next: string | undefined = data.links.next;
    if (next !== undefined) walk.nexts.push(next);
    page = next === undefined ? undefined : Number(new URL(next, baseUrl).searchParams.get('page'));
  }
  return walk;
}
