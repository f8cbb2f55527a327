/** Search text rules (docs/reference/requests.md): control characters and empty folds refused, no match across fields. */
import { describe, expect, it } from 'vitest';
import type { ResourceName } from '../../../../src/services/record-source';
import type { CompiledResource } from '../../../../src/services/bundled/compiled/resource';
import { searchTextSuite } from '../../../suites/search-text.suite';
import { mintDemoToken } from '../../../suites/tokens';
import { bundledSource, dataset, json, testApp } from '../../../support/harness';
import { speciesSearch } from '../../../support/search-oracle';
import { fakesClosedAfterEach, sendJson, fakePage, upstreamGateway } from '../../../support/upstream';

searchTextSuite(() => testApp());

const REFUSED: Array<[string, string]> = [
  ['%00', 'NUL (the old field joiner)'],
  ['balsamea%00balsam', 'NUL between two fields of ABBA'],
  ['a%09b', 'tab'],
  ['fir%0A', 'line feed'],
  ['%1F', 'U+001F'],
  ['%7F', 'DEL'],
  ['%C2%80', 'U+0080'],
  ['oak%C2%9F', 'U+009F'],
  ['%CC%81', 'a lone combining accent'],
  ['%CC%81%CC%88%CC%A7', 'only combining marks'],
  ['%20', 'a space'],
  ['+++', 'spaces written as +'],
  ['%20%CC%81%C2%A0', 'spaces, a mark and a no-break space'],
];

describe('a q with a control character, or folding to nothing, is 400 svc/invalidParameter', () => {
  const t = testApp();
  let token: Promise<string> | undefined;
  const bearer = async () => `Bearer ${await (token ??= mintDemoToken(t))}`;
  for (const [q, what] of REFUSED) {
    for (const path of ['/v2/species', '/v3/species', '/v2/genus/Abies/species']) {
      it(`${path}?q=${q} (${what})`, async () => {
        const res = await t.get(`${path}?q=${q}`, { Authorization: await bearer() });
        const body = await json(res);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(body.code, JSON.stringify(body)).toBe('svc/invalidParameter');
        expect(body.detail, JSON.stringify(body)).toMatch(/"q"/);
      });
    }
    it(`/v1/species?q=${q} (${what}): the legacy error shape`, async () => {
      const res = await t.get(`/v1/species?q=${q}`);
      const body = await json(res);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(body, JSON.stringify(body)).toEqual({ statusCode: 400, message: expect.stringMatching(/"q"/) });
    });
  }

  it('accepts what stays: letters with accents, inner and outer spaces, signs', async () => {
    for (const q of ['%C3%A9pin', 'balsam%20fir', '%20fir', '%C3%97', 'ssp.']) {
      const res = await t.get(`/v2/species?q=${q}`);
      expect(res.status, `${q}: ${await res.clone().text()}`).toBe(200);
    }
  });

  const fake = fakesClosedAfterEach();
  it('holds in upstream mode, before the upstream is called', async () => {
    const upstream = await fake((_req, res) => sendJson(res, fakePage()));
    const gateway = upstreamGateway(upstream.url);
    for (const [q] of REFUSED) {
      const res = await gateway.get(`/v2/species?q=${q}`);
      expect(res.status, q).toBe(400);
      expect((await json(res)).code).toBe('svc/invalidParameter');
    }
    expect(upstream.seen, 'no refused q reaches the upstream').toEqual([]);
    expect((await gateway.get('/v2/species?q=fir')).status).toBe(200);
  });
});

describe('a match never spans two fields, through the API as in the compiled search index', () => {
  // The compiled species of the shared source; the index's own tests over many queries are search-index.test.ts.
  const compiledSpecies = () => (bundledSource() as unknown as { resources: Record<ResourceName, CompiledResource> }).resources.species;
  const { naive, compiled } = speciesSearch(dataset, compiledSpecies);

  it('the end of one field plus the start of the next matches only where one field holds it (ABBA)', async () => {
    // ABBA: scientific_name "Abies balsamea", common_name "balsam fir": "balsamea balsam" spans the two.
    const ids = await compiled('balsamea balsam');
    expect(ids).toEqual(naive('balsamea balsam'));
    expect(ids).not.toContain('ABBA');
    expect(await compiled('abies balsamea')).toContain('ABBA');
    // And through the API, the same.
    const body = await json(await testApp().get('/v2/species?q=balsamea%20balsam'));
    expect(body.meta.total).toBe(ids.length);
  });
});
