/**
 * A collection request's `page`, `q` and `order[...]` read on their own (src/core/list-query.ts,
 * docs/reference/interface.md and docs/reference/requests.md), without a gateway: what is accepted and what it means, and the full
 * detail of each refusal. The same rules through the gateway are in `test/suites/v2.suite.ts`.
 */
import { describe, expect, it } from 'vitest';
import { parseListQuery } from '../../../src/core/list-query';
import type { ResourceName } from '../../../src/core/query';
import { ApiError } from '../../../src/core/api-error';

const read = (query: string, resource: ResourceName = 'species') => parseListQuery(new URLSearchParams(query), resource);

/** The refusal of `query`: its code and detail. */
function refusal(query: string, resource: ResourceName = 'species') {
  try {
    read(query, resource);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return { code: err.code, status: err.status, detail: err.detail };
  }
  throw new Error(`${query} was accepted`);
}

const invalid = (detail: string) => ({ code: 'svc/invalidParameter', status: 400, detail });

describe('page', () => {
  it.each([
    ['', 1],
    ['page=1', 1],
    ['page=7', 7],
    ['page=10', 10],
    ['page=123456789', 123456789],
    ['q=abies&page=42', 42],
  ])('%j is page %i', (query, page) => {
    expect(read(query).page).toBe(page);
  });

  it.each(['0', '01', '-1', '1.5', '1e3', 'a1', '1a', ' 1', '1234567890', ''])('refuses page=%j', (page) => {
    expect(refusal(`page=${page}`)).toEqual(invalid(`"page" must be a positive whole number (got ${JSON.stringify(page)}).`));
  });

  it('quotes at most 20 characters of a long page', () => {
    expect(refusal(`page=${'9'.repeat(15)}xxxxxxxxxx`)).toEqual(invalid(`"page" must be a positive whole number (got "${'9'.repeat(15)}xxxxx").`));
  });

  it('refuses page given twice, even with the same value', () => {
    expect(refusal('page=2&page=2')).toEqual(invalid('"page" may be given only once.'));
  });
});

describe('q', () => {
  it.each([
    ['q=abies', 'abies'],
    ['q=%C3%89pinette', 'Épinette'],
    ['q=+a+', ' a '],
    ['q=-', '-'],
  ])('%j searches %j, as written', (query, q) => {
    expect(read(query).q).toBe(q);
  });

  it('reads an empty q, or none, as no search', () => {
    expect(read('q=').q).toBeUndefined();
    expect(read('page=2').q).toBeUndefined();
  });

  it('counts characters, not UTF-16 units: 200 are allowed, 201 are not', () => {
    expect(read(`q=${'a'.repeat(200)}`).q).toBe('a'.repeat(200));
    expect(read(`q=${'𝄞'.repeat(199)}a`).q).toBe(`${'𝄞'.repeat(199)}a`);
    expect(refusal(`q=${'a'.repeat(201)}`)).toEqual(invalid('"q" may be at most 200 characters long.'));
  });

  it('refuses q given twice', () => {
    expect(refusal('q=a&q=b')).toEqual(invalid('"q" may be given only once.'));
  });

  it.each([
    ['spaces only', '+++'],
    ['a combining mark alone', '%CC%81'],
    ['marks and spaces', '%CC%81+%CC%88'],
  ])('refuses a q of %s, which would match everything', (_name, q) => {
    expect(refusal(`q=${q}`)).toEqual(invalid('"q" must hold a letter, digit or sign, not only spaces or combining marks.'));
  });

  it.each(['%00', 'a%0Ab', '%7F', 'a%C2%85'])('refuses a q holding a control character (%s)', (q) => {
    expect(refusal(`q=${q}`)).toEqual(invalid('"q" must not hold control characters (U+0000 to U+001F, U+007F to U+009F).'));
  });
});

describe('order', () => {
  it('keeps the terms in the order given, with their directions; other parameters are not terms', () => {
    expect(read('order[year]=desc&q=abies&order[scientific_name]=asc&orderx=1&order=asc').order).toEqual([
      { field: 'year', direction: 'desc' },
      { field: 'scientific_name', direction: 'asc' },
    ]);
    expect(read('page=2').order).toEqual([]);
  });

  it.each([
    ['species', 'scientific_name, common_name, slug, year, id'],
    ['genus', 'name, common_name, slug, id'],
    ['families', 'name, common_name, slug, id'],
    ['plants', 'scientific_name, common_name, slug, id'],
  ] as const)('refuses a field %s cannot be ordered by, listing those it can', (resource, fields) => {
    expect(refusal('order[rank]=asc', resource)).toEqual(invalid(`"order[rank]": ${resource} can be ordered by ${fields}.`));
  });

  it('refuses a field of another resource', () => {
    expect(refusal('order[name]=asc', 'species')).toEqual(invalid('"order[name]": species can be ordered by scientific_name, common_name, slug, year, id.'));
    expect(read('order[name]=asc', 'genus').order).toEqual([{ field: 'name', direction: 'asc' }]);
  });

  it('quotes at most 40 characters of a long field', () => {
    expect(refusal(`order[${'f'.repeat(45)}]=asc`, 'families').detail).toBe(
      `"order[${'f'.repeat(40)}]": families can be ordered by name, common_name, slug, id.`,
    );
  });

  it.each(['ASC', 'up', '', 'desc '])('refuses a direction other than asc or desc (%j)', (direction) => {
    expect(refusal(`order[slug]=${encodeURIComponent(direction)}`)).toEqual(invalid('"order[slug]" must be asc or desc.'));
  });

  it('refuses a field given twice, even in the same direction', () => {
    expect(refusal('order[slug]=asc&order[id]=asc&order[slug]=asc')).toEqual(invalid('"order[slug]" may be given only once.'));
  });
});
