/**
 * A collection page's envelope on its own (src/core/envelope.ts, spec "Pagination rules"), without a
 * gateway: links that keep every parameter the caller sent, in the caller's order and encoding, with
 * `page` replaced where it first stood (or added last) and v1's credentials dropped; which links a
 * page has; the meta; and a page past the last refused.
 */
import { describe, expect, it } from 'vitest';
import { collectionEnvelope, pageLinks } from '../../../src/core/envelope';
import type { PageResult } from '../../../src/core/query';
import { ApiError } from '../../../src/core/api-error';

const BASE = 'https://h.example/v2/species';

describe('pageLinks', () => {
  it('replaces page where it stood and keeps the rest as sent', () => {
    expect(pageLinks('/v2/species', `${BASE}?q=a%20b&page=3&order[slug]=desc`, 3, 5)).toEqual({
      self: '/v2/species?q=a%20b&page=3&order[slug]=desc',
      first: '/v2/species?q=a%20b&page=1&order[slug]=desc',
      prev: '/v2/species?q=a%20b&page=2&order[slug]=desc',
      next: '/v2/species?q=a%20b&page=4&order[slug]=desc',
      last: '/v2/species?q=a%20b&page=5&order[slug]=desc',
    });
  });

  it('adds page last when none was sent', () => {
    expect(pageLinks('/v2/genus', 'https://h.example/v2/genus?q=abies', 1, 2)).toEqual({
      self: '/v2/genus?q=abies&page=1',
      first: '/v2/genus?q=abies&page=1',
      next: '/v2/genus?q=abies&page=2',
      last: '/v2/genus?q=abies&page=2',
    });
    expect(pageLinks('/v2/genus', 'https://h.example/v2/genus', 1, 1).self).toBe('/v2/genus?page=1');
  });

  it('puts page where it first stood when it was sent more than once, spelled or escaped', () => {
    expect(pageLinks('/v2/species', `${BASE}?page=1&q=abies&page=2`, 2, 3).self).toBe('/v2/species?page=2&q=abies');
    expect(pageLinks('/v2/species', `${BASE}?q=abies&p%61ge=1&order[id]=asc&page=9`, 2, 3).self).toBe('/v2/species?q=abies&page=2&order[id]=asc');
  });

  it('drops the v1 credentials and empty pairs, and keeps every other parameter, malformed ones included', () => {
    const links = pageLinks('/v1/species', `${BASE}?key=s3cret&q=%zz&&token=t0ken&order[slug]&page=2&`, 2, 2);
    expect(links.self).toBe('/v1/species?q=%zz&order[slug]&page=2');
    expect(JSON.stringify(links)).not.toMatch(/s3cret|t0ken/);
  });

  it('links the first and last page, and the previous and next only where there are such pages', () => {
    const keys = (page: number, last: number) => Object.keys(pageLinks('/v2/species', BASE, page, last));
    expect(keys(1, 1)).toEqual(['self', 'first', 'last']);
    expect(keys(1, 2)).toEqual(['self', 'first', 'next', 'last']);
    expect(keys(2, 2)).toEqual(['self', 'first', 'prev', 'last']);
    expect(keys(2, 3)).toEqual(['self', 'first', 'prev', 'next', 'last']);
  });

  it('gives an empty collection only its own link', () => {
    expect(pageLinks('/v2/species', `${BASE}?q=nothing`, 1, 0)).toEqual({ self: '/v2/species?q=nothing&page=1' });
  });
});

describe('collectionEnvelope', () => {
  const page = (n: number, total: number, perPage = 20): PageResult => ({ items: [{ id: `item-${n}` }], total, page: n, perPage });

  it('holds the items, the links and the meta, the last page rounded up', () => {
    expect(collectionEnvelope(page(2, 41), '/v2/species', `${BASE}?page=2`)).toEqual({
      data: [{ id: 'item-2' }],
      links: {
        self: '/v2/species?page=2',
        first: '/v2/species?page=1',
        prev: '/v2/species?page=1',
        next: '/v2/species?page=3',
        last: '/v2/species?page=3',
      },
      meta: { total: 41, per_page: 20, current_page: 2, last_page: 3 },
    });
    expect(collectionEnvelope(page(4, 40, 10), '/v1/species', BASE).meta).toEqual({ total: 40, per_page: 10, current_page: 4, last_page: 4 });
  });

  it('answers page 1 of nothing, with no last page', () => {
    expect(collectionEnvelope({ items: [], total: 0, page: 1, perPage: 20 }, '/v2/species', BASE)).toEqual({
      data: [],
      links: { self: '/v2/species?page=1' },
      meta: { total: 0, per_page: 20, current_page: 1, last_page: 0 },
    });
  });

  it.each([
    [4, 60, 'Page 4 is past the last page (3).'],
    [2, 20, 'Page 2 is past the last page (1).'],
    [2, 0, 'Page 2 is past the last page (0).'],
  ])('refuses page %i of %i records as not found', (n, total, detail) => {
    let thrown: unknown;
    try {
      collectionEnvelope(page(n, total), '/v2/species', BASE);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect({ code: (thrown as ApiError).code, status: (thrown as ApiError).status, detail: (thrown as ApiError).detail }).toEqual({
      code: 'svc/notFound',
      status: 404,
      detail,
    });
  });
});
