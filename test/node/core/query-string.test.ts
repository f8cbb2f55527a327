/**
 * How the gateway reads a request's query on its own (src/core/query-string.ts), without a gateway:
 * credential names in any letter case, parameter names decoded (malformed escapes kept as written),
 * the raw pairs links are built from (caller's order and encoding, empty pairs and the fragment
 * dropped), the plain query logs and kept-page keys take as it is, the decoded parameters a list
 * request reads, and the path of a URL as the runtime normalised it.
 */
import { describe, expect, it } from 'vitest';
import { decodeParamName, isCredentialName, pairName, pathname, plainQuery, queryParams, rawQueryPairs } from '../../../src/core/query-string';

describe('isCredentialName', () => {
  it.each(['key', 'KEY', 'Token', 'api_key', 'ApiKey', 'ACCESS_TOKEN', 'client_secret', 'Password', 'Authorization', 'X-Api-Key', 'x-key'])(
    'knows %j as a credential name',
    (name) => {
      expect(isCredentialName(name)).toBe(true);
    },
  );

  it.each(['keys', 'monkey', 'token2', 'api-key', 'x_api_key', '', 'page'])('does not take %j for one', (name) => {
    expect(isCredentialName(name)).toBe(false);
  });
});

describe('decodeParamName', () => {
  it.each([
    ['page', 'page'],
    ['order%5Bslug%5D', 'order[slug]'],
    ['common+name', 'common name'],
    ['a+b+c', 'a b c'],
    ['a%2Bb', 'a+b'],
    ['%C3%A9t%C3%A9', 'été'],
    // Malformed escapes: the name as written, its `+` included.
    ['%E0%A4%A', '%E0%A4%A'],
    ['100%+sure', '100%+sure'],
  ])('reads %j as %j', (raw, name) => {
    expect(decodeParamName(raw)).toBe(name);
  });
});

describe('rawQueryPairs', () => {
  it.each([
    ['https://h.example/v2/species', []],
    ['https://h.example/v2/species?', []],
    ['https://h.example/v2/species?page=2', ['page=2']],
    ['https://h.example/v2/species?q=a%20b&order[slug]=desc&page=2', ['q=a%20b', 'order[slug]=desc', 'page=2']],
    ['https://h.example/v2/species?a=1&&b=2&', ['a=1', 'b=2']],
    ['https://h.example/v2/species?&a', ['a']],
    ['https://h.example/v2/species?a=1&b=2#c=3&d', ['a=1', 'b=2']],
    ['https://h.example/v2/species?a=1#', ['a=1']],
    ['https://h.example/v2/species?a=%zz&b=+x', ['a=%zz', 'b=+x']],
  ])('%s -> %j', (url, pairs) => {
    expect(rawQueryPairs(url)).toEqual(pairs);
  });
});

describe('plainQuery', () => {
  it.each([
    ['https://h.example/v2/species?page=2', 'page=2'],
    ['https://h.example/v2/species?q=abies&order[slug]=desc&page=3', 'q=abies&order[slug]=desc&page=3'],
    // Names that only begin or end like a credential name are not one.
    ['https://h.example/v2/species?keys=1&monkey=2&tokens', 'keys=1&monkey=2&tokens'],
    ['https://h.example/v2/species?x-api-keyring=1', 'x-api-keyring=1'],
  ])('takes the query of %s as it is', (url, query) => {
    expect(plainQuery(url)).toBe(query);
  });

  it.each([
    ['no query', 'https://h.example/v2/species'],
    ['an empty query', 'https://h.example/v2/species?'],
    ['an escape', 'https://h.example/v2/species?q=a%20b'],
    ['a plus', 'https://h.example/v2/species?q=a+b'],
    ['a fragment', 'https://h.example/v2/species?page=2#top'],
    ['an empty pair', 'https://h.example/v2/species?page=2&&q=abies'],
    ['a leading &', 'https://h.example/v2/species?&page=2'],
    ['a trailing &', 'https://h.example/v2/species?page=2&'],
    ['a space', 'https://h.example/v2/species?q=a b'],
    ['a character past ASCII', 'https://h.example/v2/species?q=été'],
    ['a control character', 'https://h.example/v2/species?q=a\u0001'],
    ['a credential first', 'https://h.example/v2/species?key=s3cret&page=2'],
    ['a credential later, in another letter case', 'https://h.example/v2/species?page=2&TOKEN=s3cret'],
    ['a credential without a value', 'https://h.example/v2/species?page=2&api_key'],
    ['a credential without a value, then more', 'https://h.example/v2/species?x-api-key&page=2'],
  ])('reads pair by pair a query with %s', (_name, url) => {
    expect(plainQuery(url)).toBeUndefined();
  });

  it('answers each URL for itself when asked about several in turn', () => {
    const urls = ['https://h.example/a?page=1', 'https://h.example/a?key=1', 'https://h.example/a?page=2', 'https://h.example/a?page=2'];
    expect(urls.map((url) => plainQuery(url))).toEqual(['page=1', undefined, 'page=2', 'page=2']);
    expect(plainQuery('https://h.example/a?page=1')).toBe('page=1');
  });
});

describe('pairName', () => {
  it.each([
    ['page=2', 'page'],
    ['page', 'page'],
    ['a=b=c', 'a'],
    ['=orphan', ''],
    ['order%5Bslug%5D=desc', 'order[slug]'],
    ['p%61ge', 'page'],
  ])('names %j %j', (pair, name) => {
    expect(pairName(pair)).toBe(name);
  });
});

describe('queryParams', () => {
  const read = (url: string) => {
    const params = queryParams(url);
    return { entries: [...params], a: params.getAll('a') };
  };

  it('splits a query without escapes as it is: repeats kept in order, a name without = read as empty', () => {
    expect(read('https://h.example/x?a=1&b=2&a=3&c&d=e=f')).toEqual({
      entries: [
        ['a', '1'],
        ['b', '2'],
        ['a', '3'],
        ['c', ''],
        ['d', 'e=f'],
      ],
      a: ['1', '3'],
    });
    expect(read('https://h.example/x').entries).toEqual([]);
    // A pair without a name, as `URLSearchParams` reads it.
    expect(read('https://h.example/x?=orphan&a=1').entries).toEqual([
      ['', 'orphan'],
      ['a', '1'],
    ]);
    expect(read('https://h.example/x?b=1').a).toEqual([]);
  });

  it.each([
    [
      'an escape',
      'https://h.example/x?a=caf%C3%A9&order%5Bslug%5D=asc',
      [
        ['a', 'café'],
        ['order[slug]', 'asc'],
      ],
      ['café'],
    ],
    ['a plus alone', 'https://h.example/x?a=sapin+baumier', [['a', 'sapin baumier']], ['sapin baumier']],
    [
      'a plus in a later pair',
      'https://h.example/x?b=1&a=x+y',
      [
        ['b', '1'],
        ['a', 'x y'],
      ],
      ['x y'],
    ],
  ])('decodes a query with %s as the standard does', (_name, url, entries, a) => {
    expect(read(url)).toEqual({ entries, a });
  });
});

describe('pathname', () => {
  it.each([
    ['https://h.example/v2/species', '/v2/species'],
    ['https://h.example/v2/species?q=a/b', '/v2/species'],
    ['https://h.example/v2/species#top', '/v2/species'],
    ['https://h.example/v2/species/?page=2#x', '/v2/species/'],
    ['http://h.example:8787/', '/'],
    ['https://h.example', '/'],
  ])('%s -> %s', (url, path) => {
    expect(pathname(url)).toBe(path);
    expect(new URL(url).pathname).toBe(path);
  });
});
