/**
 * What the gateway asks the legacy v1 backend for, and how it reads its answers and its brownout
 * windows (docs/reference/migration.md): the forwarded path and query, the links moved to the caller's
 * base, the v1 routes and templates logs and metrics count by, and the ISO 8601 instants and
 * intervals of `V1_BROWNOUTS`. Pure functions, tested without a gateway.
 */
import { describe, expect, it } from 'vitest';
import { forwardedTarget, rewriteLinks } from '../../../src/migration/forward';
import { intervalAt, parseInstant, parseInterval, parseIntervals } from '../../../src/core/intervals';
import { pathTemplate, routeTemplate } from '../../../src/core/route-template';
import { RESOURCE_NAMES } from '../../../src/core/resources';
import { matchV1Route } from '../../../src/migration/v1-routes';

const H = 3_600_000;

describe('the request forwarded to the legacy backend', () => {
  it('is the path below the base and the query in its own order and encoding', () => {
    expect(forwardedTarget('https://gw.example/api/v1/species?q=oak%20tree&page=2', '/api/v1')).toBe('/species?q=oak%20tree&page=2');
    expect(forwardedTarget('https://gw.example/v1/species/ABBA', '/v1')).toBe('/species/ABBA');
    expect(forwardedTarget('https://gw.example/v1/species?', '/v1')).toBe('/species');
  });

  it('drops every credential-named parameter in any letter case, and the query with them when nothing else is left', () => {
    expect(forwardedTarget('https://gw.example/v1/species?key=k1&page=2&TOKEN=t1&Api_Key=a&q=fir&access_token=x', '/v1')).toBe('/species?page=2&q=fir');
    expect(forwardedTarget('https://gw.example/v1/species?key=k1&token=t1', '/v1')).toBe('/species');
    // A name that only starts like one is the caller's own parameter.
    expect(forwardedTarget('https://gw.example/v1/species?keys=1&tokenized=2', '/v1')).toBe('/species?keys=1&tokenized=2');
  });
});

describe('the legacy backend links, moved to the caller base', () => {
  const legacy = 'https://legacy.internal/api/v1';

  it('moves absolute links under LEGACY_V1_URL and paths under its base path, and keeps every other member', () => {
    const body = {
      data: [{ id: 'ABBA' }],
      links: { self: `${legacy}/species?page=2`, first: '/api/v1/species?page=1', next: `${legacy}?page=3`, prev: '/api/v1?page=1' },
      meta: { total: 3 },
    };
    expect(rewriteLinks(body, legacy, '/v1')).toEqual({
      data: [{ id: 'ABBA' }],
      links: { self: '/v1/species?page=2', first: '/v1/species?page=1', next: '/v1?page=3', prev: '/v1?page=1' },
      meta: { total: 3 },
    });
    // The backend's body itself is not changed.
    expect(body.links.self).toBe(`${legacy}/species?page=2`);
  });

  it('leaves links elsewhere, links that only share the first characters of the base, and values that are not text', () => {
    const links = {
      other: 'https://elsewhere.example/api/v1/species',
      longer: `${legacy}0/species`,
      pathLonger: '/api/v10/species',
      bare: 'species?page=2',
      count: 3,
      none: null,
    };
    expect(rewriteLinks({ links }, legacy, '/v1')).toEqual({ links });
  });

  it('reads LEGACY_V1_URL with trailing slashes as its base path', () => {
    expect(rewriteLinks({ links: { self: '/api/v1/species' } }, 'https://legacy.internal/api/v1//', '/v1')).toEqual({ links: { self: '/v1/species' } });
    expect(rewriteLinks({ links: { self: '/legacy/species' } }, 'https://legacy.internal/legacy/', '/v1')).toEqual({ links: { self: '/v1/species' } });
  });

  it('passes through a body that is not an object with links as it is', () => {
    for (const body of [
      null,
      'text',
      3,
      [{ links: { self: '/api/v1/species' } }],
      { data: [] },
      { links: null },
      { links: ['/api/v1/species'] },
      { links: '/api/v1' },
    ]) {
      expect(rewriteLinks(body, legacy, '/v1')).toBe(body);
    }
  });
});

describe('the v1 routes the legacy backend serves', () => {
  it('are the collections and details, for GET and HEAD', () => {
    expect(matchV1Route('GET', '/species')).toEqual({ resource: 'species', detail: false, template: 'GET /species', path: '/species' });
    expect(matchV1Route('HEAD', '/genus/ABIES')).toEqual({ resource: 'genus', detail: true, template: 'GET /genus/{id}', path: '/genus/{id}' });
    expect(matchV1Route('GET', '/plants/ABBA')?.template).toBe('GET /plants/{id}');
  });

  it.each([
    ['POST', '/species'],
    ['OPTIONS', '/species'],
    ['GET', 'species'],
    ['GET', 'v1/species'],
    ['GET', '/'],
    ['GET', ''],
    ['GET', '/trees'],
    ['GET', '/species/'],
    ['GET', '/species/ABBA/synonyms'],
    ['GET', '/genus/ABIES/species'],
  ])('%s %s is answered by the gateway itself', (method, path) => {
    expect(matchV1Route(method, path)).toBeUndefined();
  });

  it('log by templates that never hold an id, HEAD as the GET it mirrors', () => {
    expect(routeTemplate('GET', '/species')).toBe('GET /species');
    expect(routeTemplate('HEAD', '/species/ABBA')).toBe('GET /species/{id}');
    expect(routeTemplate('POST', '/families/Pinaceae/genus')).toBe('POST /families/{id}/genus');
    expect(pathTemplate('/genus/ABIES/species')).toBe('/genus/{id}/species');
    expect(routeTemplate('OPTIONS', '/migration-plan')).toBe('OPTIONS /migration-plan');
    expect(routeTemplate('HEAD', '/migration-plan')).toBe('GET /migration-plan');
    for (const resource of RESOURCE_NAMES) {
      expect(routeTemplate('GET', `/${resource}`)).toBe(`GET /${resource}`);
      expect(routeTemplate('DELETE', `/${resource}/x.y`)).toBe(`DELETE /${resource}/{id}`);
      for (const child of RESOURCE_NAMES) expect(pathTemplate(`/${resource}/a%20b/${child}`)).toBe(`/${resource}/{id}/${child}`);
    }
    for (const path of [
      '',
      '/',
      '//species',
      '/species//',
      '/genus/ABIES/species/',
      '/genus/ABIES/trees',
      '/genus/ABIES/',
      '/genus//species',
      '/genus/ABIES/species/ABBA',
      '/trees',
      'species',
      'v1/species',
      '/species/',
    ]) {
      expect(pathTemplate(path), path).toBeNull();
      expect(routeTemplate('GET', path), path).toBeNull();
    }
  });
});

describe('brownout windows (V1_BROWNOUTS)', () => {
  it('read RFC 3339 instants with an offset, in either letter case and with fractions', () => {
    expect(parseInstant('2027-05-04T14:00:00Z')).toBe(Date.parse('2027-05-04T14:00:00Z'));
    expect(parseInstant('2027-05-04t14:00:00z')).toBe(Date.parse('2027-05-04T14:00:00Z'));
    expect(parseInstant('2027-05-04T14:00:00.250+02:30')).toBe(Date.parse('2027-05-04T11:30:00.250Z'));
    expect(parseInstant('2027-05-04T14:00:00-23:59')).toBe(Date.parse('2027-05-05T13:59:00Z'));
    expect(parseInstant('2028-02-29T23:59:59Z')).toBe(Date.parse('2028-02-29T23:59:59Z'));
  });

  it.each([
    '2027-02-29T00:00:00Z',
    '2027-04-31T00:00:00Z',
    '2027-13-01T00:00:00Z',
    '2027-00-10T00:00:00Z',
    '2027-05-00T00:00:00Z',
    '2027-05-04T24:00:00Z',
    '2027-05-04T23:60:00Z',
    '2027-05-04T23:59:60Z',
    '2027-05-04T14:00:00+24:00',
    '2027-05-04T14:00:00+23:60',
    '2027-05-04T14:00:00',
    '2027-05-04 14:00:00Z',
    '2027-05-04T14:00Z',
    ' 2027-05-04T14:00:00Z',
    '2027-05-04T14:00:00Z ',
  ])('refuse the impossible or incomplete instant %j', (text) => {
    expect(parseInstant(text)).toBeUndefined();
  });

  it('read durations of weeks, days, hours, minutes and seconds', () => {
    const start = Date.parse('2027-05-04T14:00:00Z');
    const end = (duration: string) => parseInterval(`2027-05-04T14:00:00Z/${duration}`).end - start;
    expect(end('P2W')).toBe(14 * 24 * H);
    expect(end('P3D')).toBe(72 * H);
    expect(end('PT2H')).toBe(2 * H);
    expect(end('PT90M')).toBe(1.5 * H);
    expect(end('PT1.5S')).toBe(1500);
    expect(end('p1dt1h1m1s')).toBe(25 * H + 61_000);
    expect(parseInterval('P1D/2027-05-04T14:00:00Z')).toEqual({ start: start - 24 * H, end: start });
  });

  it.each(['P', 'PT', 'P1DT', 'PT0S', 'P0D', 'P1W2D', 'P1M', 'P1Y', 'PT1.5H', '1H', 'P-1D'])('refuse the duration %j', (duration) => {
    expect(() => parseInterval(`2027-05-04T14:00:00Z/${duration}`)).toThrow(
      `holds "2027-05-04T14:00:00Z/${duration}": each side must be an RFC 3339 date-time with an offset, or a duration such as PT1H (one side at most)`,
    );
  });

  it('name what is wrong with an interval', () => {
    expect(() => parseInterval('2027-05-04T14:00:00Z')).toThrow('holds "2027-05-04T14:00:00Z", not an interval of the form start/end or start/duration');
    expect(() => parseInterval('a/b/c')).toThrow('holds "a/b/c", not an interval of the form start/end or start/duration');
    expect(() => parseInterval('2027-05-04T14:00:00Z/2027-05-04T14:00:00Z')).toThrow(
      'holds "2027-05-04T14:00:00Z/2027-05-04T14:00:00Z", which ends before it starts',
    );
    expect(() => parseInterval('PT1H/PT1H')).toThrow('each side must be an RFC 3339 date-time with an offset');
    // One side an instant, the other neither an instant nor a duration.
    expect(() => parseInterval('yesterday/2027-05-04T14:00:00Z')).toThrow('each side must be an RFC 3339 date-time with an offset');
    expect(() => parseInterval('2027-05-04T14:00:00Z/tomorrow')).toThrow('each side must be an RFC 3339 date-time with an offset');
  });

  it('list intervals in start order, blank parts skipped, and find the one an instant is in (start included, end not)', () => {
    const windows = parseIntervals(' 2027-06-01T00:00:00Z/PT1H , ,2027-05-04T14:00:00Z/PT30M,');
    const may = Date.parse('2027-05-04T14:00:00Z');
    const june = Date.parse('2027-06-01T00:00:00Z');
    expect(windows).toEqual([
      { start: may, end: may + 0.5 * H },
      { start: june, end: june + H },
    ]);
    expect(parseIntervals('')).toEqual([]);
    expect(parseIntervals(' , ')).toEqual([]);
    expect(intervalAt(windows, may - 1)).toBeUndefined();
    expect(intervalAt(windows, may)).toBe(windows[0]);
    expect(intervalAt(windows, may + 0.5 * H - 1)).toBe(windows[0]);
    expect(intervalAt(windows, may + 0.5 * H)).toBeUndefined();
    expect(intervalAt(windows, june + 1)).toBe(windows[1]);
    expect(intervalAt(windows, june + H)).toBeUndefined();
  });
});
