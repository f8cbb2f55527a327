/**
 * Logs and kept-page keys read a plain query (`?page=2`) as it is, without going pair by pair;
 * whatever the query, the answer must be what the pair-by-pair rules give. The oracle below is
 * written from those rules, not from the code.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PageCache } from '../../src/routes/page-cache';
import { redactedTarget } from '../../src/core/redact';
import { v2 } from '../../src/versions';

const CREDENTIALS = ['key', 'token', 'api_key', 'apikey', 'access_token', 'client_secret', 'password', 'authorization', 'x-api-key', 'x-key'];

const decodeName = (raw: string): string => {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
};
const nameOf = (pair: string) => decodeName(pair.split('=')[0]!);
const isCredential = (pair: string) => CREDENTIALS.includes(nameOf(pair).toLowerCase());
const pairsOf = (url: string) => {
  const q = url.indexOf('?');
  if (q < 0) return [];
  return url
    .slice(q + 1)
    .split('#')[0]!
    .split('&')
    .filter((p) => p !== '');
};
const pathOf = (url: string) => new URL(url).pathname;

/** Redacted target: every credential-named pair's value replaced. */
const redacted = (url: string) => {
  const pairs = pairsOf(url).map((p) => (isCredential(p) ? `${p.split('=')[0]}=[redacted]` : p));
  return pairs.length ? `${pathOf(url)}?${pairs.join('&')}` : pathOf(url);
};

/** Page key: version, path, the pairs but `key` and `token`; none when another credential name is there. */
const pageKey = (url: string) => {
  const pairs = pairsOf(url);
  if (pairs.some((p) => isCredential(p) && !['key', 'token'].includes(nameOf(p)))) return undefined;
  return `v2 ${pathOf(url)}?${pairs
    .filter((p) => !['key', 'token'].includes(nameOf(p)))
    .map((p) => `${p}&`)
    .join('')}`;
};

const names = fc.oneof(
  fc.constantFrom('page', 'q', 'order[common_name]', 'order[id]', 'x', ''),
  fc
    .constantFrom(...CREDENTIALS)
    .chain((n) => fc.constantFrom(n, n.toUpperCase(), n[0]!.toUpperCase() + n.slice(1), `${n}x`, `x${n}`, encodeURIComponent(n).replace(/^k/, '%6B'))),
);
const values = fc.constantFrom('', '2', 'fir', 'a+b', 'a%20b', 'asc', 'x=y', 's3cret');
const pair = fc.tuple(names, fc.boolean(), values).map(([n, eq, v]) => (eq ? `${n}=${v}` : n));
const query = fc.array(pair, { maxLength: 5 }).map((pairs) => pairs.join('&'));
const url = fc
  .tuple(fc.constantFrom('/v2/species', '/v1/genus/Abies/species'), fc.constantFrom('', '?'), query, fc.constantFrom('', '#frag'))
  .map(([path, mark, q, hash]) => `http://localhost:8787${path}${mark || q ? '?' : ''}${q}${hash}`);

describe('a plain query, read as it is', () => {
  it('gives the redacted target the pair-by-pair rules give', () => {
    fc.assert(
      fc.property(url, (u) => {
        expect(redactedTarget(u)).toBe(redacted(u));
      }),
      { numRuns: 3000, seed: 7 },
    );
  });

  it('gives the kept-page key the pair-by-pair rules give', () => {
    const pages = new PageCache();
    fc.assert(
      fc.property(url, (u) => {
        expect(pages.keyOf(v2, u)).toBe(pageKey(u));
      }),
      { numRuns: 3000, seed: 7 },
    );
  });

  it.each([
    ['http://h/v2/species?page=2', '/v2/species?page=2'],
    ['http://h/v2/species?page=2&KEY=s3cret', '/v2/species?page=2&KEY=[redacted]'],
    ['http://h/v2/species?Api_Key=s3cret&q=fir', '/v2/species?Api_Key=[redacted]&q=fir'],
    ['http://h/v2/species?keyring=1', '/v2/species?keyring=1'],
  ])('%s is logged as %s', (u, logged) => {
    expect(redactedTarget(u)).toBe(logged);
  });
});
