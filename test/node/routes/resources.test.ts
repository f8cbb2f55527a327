/**
 * The resource routes as a caller sees them where the suites do not look: what a 404 says, the
 * enumeration routes v1 does not have, and records of a version that rewrites them (v1), which are
 * rewritten once and kept: asked for again, in a list or as a detail, they are the same bytes
 * with the same validators.
 */
import { describe, expect, it, vi } from 'vitest';
import { RawJson } from '../../../src/core/json-body';
import type { Detail, ListPage, RecordSource } from '../../../src/services/record-source';
import { DEMO, json } from '../../suites/client';
import { diskApp, diskSource } from '../../support/gateway';

describe('what a 404 of the resource routes says', () => {
  // Each test builds its own gateway: the routes are made when the gateway is.
  it.each([
    ['/v2/species/NOPE123', 'No species record has id "NOPE123".'],
    ['/v2/families/Nopeaceae', 'No families record has id "Nopeaceae".'],
    ['/v2/genus/Nopenotagenus/species', 'No genus record has id "Nopenotagenus".'],
    ['/v2/plants/NOPE123/species', 'No plants record has id "NOPE123".'],
  ])('%s: %s', async (path, detail) => {
    const res = await diskApp().get(path);
    expect(res.status).toBe(404);
    expect(await json(res)).toMatchObject({ code: 'svc/notFound', detail });
  });

  it.each([
    ['/v1/families/Pinaceae/genus', '/families/{id}/genus'],
    ['/v1/genus/Abies/species', '/genus/{id}/species'],
    ['/v1/genus/Abies/plants', '/genus/{id}/plants'],
    ['/v1/plants/ABBA/species', '/plants/{id}/species'],
  ])('%s does not exist in v1, which has no enumeration routes', async (path, route) => {
    const t = diskApp();
    const res = await t.get(path);
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({ statusCode: 404, message: `${route} does not exist in v1.` });
    // v2 has the same route.
    expect((await t.get(path.replace('/v1/', '/v2/'))).status).toBe(200);
  });
});

describe('records of a version that rewrites them (v1)', () => {
  it('are the same bytes in a list asked for again, and the same records as their details', async () => {
    const gateway = diskApp();
    const first = await (await gateway.get('/v1/genus?page=3')).text();
    for (let i = 0; i < 2; i++) expect(await (await gateway.get('/v1/genus?page=3')).text()).toBe(first);
    // The same page with another query spelling: rendered anew, from the same kept records.
    const records = JSON.parse(first).data as Array<{ id: string }>;
    expect(records.length).toBe(10);
    const again = (await json(await gateway.get('/v1/genus?page=3&x=1'))).data;
    expect(JSON.stringify(again)).toBe(JSON.stringify(records));
    const detail = await json(await gateway.get(`/v1/genus/${records[0]!.id}`));
    expect(JSON.stringify(detail)).toBe(JSON.stringify(records[0]));
  });

  it('are v1 records in every list, a species in v1 spelling', async () => {
    const page = await json(await diskApp().get('/v1/species?q=balsam'));
    const abba = page.data.find((r: { id: string }) => r.id === 'ABBA');
    expect(abba).toMatchObject({ rank: 'SPECIES', status: 'ACCEPTED', duration: ['PERENNIAL'] });
    expect(abba.common_names.English).toContain('balsam fir');
  });

  it('give a detail the ETag of its own bytes: the same each time, another for another record, 304 to it', async () => {
    const gateway = diskApp();
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await gateway.get('/v1/species/ABBA'));
    const tag = answers[0]!.headers.get('ETag');
    const body = await answers[0]!.text();
    for (const res of answers.slice(1)) {
      expect(res.headers.get('ETag')).toBe(tag);
      expect(await res.text()).toBe(body);
    }
    // Another gateway renders the same bytes and gives them the same tag.
    expect((await diskApp().get('/v1/species/ABBA')).headers.get('ETag')).toBe(tag);
    expect((await gateway.get('/v1/species/ABAM')).headers.get('ETag')).not.toBe(tag);
    expect((await gateway.get('/v2/species/ABBA')).headers.get('ETag')).not.toBe(tag);
    const notModified = await gateway.get('/v1/species/ABBA', { Authorization: DEMO.key, 'If-None-Match': tag! });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('ETag')).toBe(tag);
    expect(notModified.headers.get('Last-Modified')).toBe('Wed, 18 Mar 2026 00:00:00 GMT');
  });
});

describe('stored records, parsed only where a version change reads them', () => {
  /** How many stored records `run` parses. */
  async function parses(run: () => Promise<unknown>): Promise<number> {
    const spy = vi.spyOn(RawJson.prototype, 'parse');
    try {
      await run();
      return spy.mock.calls.length;
    } finally {
      spy.mockRestore();
    }
  }

  it('are copied into v2 lists and details as they are stored, never parsed', async () => {
    const { get } = diskApp();
    const count = await parses(async () => {
      expect((await json(await get('/v2/species?page=4'))).data).toHaveLength(20);
      expect((await json(await get('/v2/species/ABBA'))).data.id).toBe('ABBA');
    });
    expect(count).toBe(0);
  });

  it('are parsed once for v1: a page rendered anew and its records as details parse none again', async () => {
    const { get } = diskApp();
    let ids: string[] = [];
    const first = await parses(async () => {
      ids = (await json(await get('/v1/genus?page=5'))).data.map((r: { id: string }) => r.id);
    });
    expect(ids).toHaveLength(10);
    // Each record of the page parsed once to be rewritten.
    expect(first).toBeGreaterThanOrEqual(ids.length);
    const again = await parses(async () => {
      // Another query spelling: no kept page answers it, the kept records do.
      expect((await json(await get('/v1/genus?page=5&x=1'))).data.map((r: { id: string }) => r.id)).toEqual(ids);
      for (const id of ids.slice(0, 3)) expect((await json(await get(`/v1/genus/${id}`))).id).toBe(id);
    });
    expect(again).toBe(0);
  });

  it('answer the smallest record again in v1 from what was kept, the same bytes', async () => {
    // The smallest family, some 70 bytes: a detail this small is kept like any other.
    const { get } = diskApp();
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await get('/v1/families/Aloaceae'));
    const body = await answers[0]!.text();
    expect(JSON.parse(body)).toMatchObject({ id: 'Aloaceae' });
    for (const res of answers.slice(1)) {
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(body);
      expect(res.headers.get('ETag')).toBe(answers[0]!.headers.get('ETag'));
    }
  });
});

describe('records of a source that answers them as objects (an upstream)', () => {
  /** The dataset's records, parsed: no stored bytes, no stored ETag, answers that may change. */
  const parsed: RecordSource = {
    immutable: false,
    list: (resource, query, scope) => diskSource().list(resource, query, scope) as Promise<ListPage>,
    get: (resource, id) => diskSource().get(resource, id) as Promise<Detail>,
  };

  it('are rewritten for v1 too, in lists and details', async () => {
    const { get } = diskApp({ services: { source: parsed } });
    const page = await json(await get('/v1/species?q=balsam'));
    expect(page.data.find((r: { id: string }) => r.id === 'ABBA')).toMatchObject({ rank: 'SPECIES', status: 'ACCEPTED' });
    expect(await json(await get('/v1/species/ABBA'))).toMatchObject({ id: 'ABBA', rank: 'SPECIES', duration: ['PERENNIAL'] });
  });

  it('give each detail the ETag of its bytes, in every version, the same as over the stored records', async () => {
    const over = diskApp({ services: { source: parsed } });
    const stored = diskApp();
    for (const path of ['/v2/species/ABBA', '/v2/species/ABAM', '/v1/species/ABBA', '/v2/genus/Abies']) {
      const res = await over.get(path);
      const same = await stored.get(path);
      expect(res.headers.get('ETag'), path).toBe(same.headers.get('ETag'));
      expect(await res.text(), path).toBe(await same.text());
    }
    const tag = (await over.get('/v2/species/ABBA')).headers.get('ETag')!;
    expect((await over.get('/v2/species/ABBA', { Authorization: DEMO.key, 'If-None-Match': tag })).status).toBe(304);
  });
});
