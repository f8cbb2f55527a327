/**
 * The policies' response headers are gathered as plain pairs and merged once: into a response
 * the core builds with `respond`, or set on any other response when the policies are done. Either
 * way a client sees each header once, with the policy's value, and a version's `Link` next to a
 * handler's own.
 */
import { type Context, Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { AppEnv } from '../../../src/env';
import { requestId } from '../../../src/policies/request-id';
import { bodyBytes, respond } from '../../../src/policies/response-headers';
import { versionContext } from '../../../src/policies/version-context';
import type { Version } from '../../../src/versions/version';
import { ResponseHeaders } from '../../../src/policies/response-header-set';

describe('ResponseHeaders', () => {
  it('merges into a handler’s headers: the policy’s value wins, an appended value follows the handler’s', () => {
    const headers = new ResponseHeaders();
    headers.set('svc-request-id', 'abc');
    headers.set('content-type', 'application/problem+json');
    headers.append('link', '<https://guide>; rel="deprecation"');
    expect(headers.merged({ 'Content-Type': 'application/json', LINK: '</v1/species?page=2>; rel="next"', ETag: '"x"' })).toEqual({
      'content-type': 'application/problem+json',
      link: '</v1/species?page=2>; rel="next", <https://guide>; rel="deprecation"',
      etag: '"x"',
      'svc-request-id': 'abc',
    });
    // Nothing of the handler's to follow: the appended value stands alone.
    expect(headers.merged({})).toEqual({ 'svc-request-id': 'abc', 'content-type': 'application/problem+json', link: '<https://guide>; rel="deprecation"' });
  });

  it('appends values of one name in order, after the handler’s, on a plain object and on Headers alike', () => {
    const headers = new ResponseHeaders();
    headers.append('link', '<a>');
    headers.append('link', '<b>');
    expect(headers.merged({ Link: '<own>' })).toEqual({ link: '<own>, <a>, <b>' });
    const target = new Headers({ Link: '<own>', 'Svc-Request-Id': 'handler' });
    headers.set('svc-request-id', 'policy');
    headers.applyTo(target);
    expect([target.get('link'), target.get('svc-request-id')]).toEqual(['<own>, <a>, <b>', 'policy']);
  });

  it('a value appended after a set adds to the policy’s value, and still replaces the handler’s', () => {
    const headers = new ResponseHeaders();
    headers.set('link', '<a>');
    headers.append('link', '<b>');
    expect(headers.merged({ Link: '<own>' })).toEqual({ link: '<a>, <b>' });
    const target = new Headers({ Link: '<own>' });
    headers.applyTo(target);
    expect(target.get('link')).toBe('<a>, <b>');
  });

  it('a later set replaces an appended value, as on Headers', () => {
    const headers = new ResponseHeaders();
    headers.append('link', '<a>');
    headers.set('link', '<b>');
    expect(headers.merged({ Link: '<c>' })).toEqual({ link: '<b>' });
  });
});

describe('policy headers on every kind of response', () => {
  const linked: Version = {
    name: 'linked',
    bases: ['/linked'],
    changes: [
      {
        name: 'guide',
        description: 'Every response links the guide.',
        headers: (h) => (h.set('deprecation', '@1'), h.append('link', '<https://guide>; rel="deprecation"')),
      },
    ],
  };
  const app = new Hono<AppEnv>();
  app.use(requestId(), versionContext([linked]));
  // Built by the core's way (headers merged once) and by Hono's own (headers set afterwards).
  app.get('/linked/core', (c) => respond(c, '{}', 200, { 'Content-Type': 'application/json', Link: '</linked/core?page=2>; rel="next"' }));
  app.get('/linked/text', (c) => c.text('plain', 200, { Link: '</linked/text?page=2>; rel="next"' }));
  app.get('/linked/redirect', (c) => c.redirect('/linked/core', 301));

  for (const [path, ownLink] of [
    ['/linked/core', '</linked/core?page=2>; rel="next", '],
    ['/linked/text', '</linked/text?page=2>; rel="next", '],
    ['/linked/redirect', ''],
  ] as const) {
    it(`${path}: the request id, the version's headers, and each Link once`, async () => {
      const res = await app.request(path);
      expect(res.headers.get('Svc-Request-Id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.headers.get('Deprecation')).toBe('@1');
      expect(res.headers.get('Link')).toBe(`${ownLink}<https://guide>; rel="deprecation"`);
    });
  }
});

describe('a header the policies remove', () => {
  const app = new Hono<AppEnv>();
  app.use(requestId(), async (c, next) => {
    // As `uncacheable` does on an error: no `Vary`, whoever set it.
    c.get('responseHeaders')!.delete('vary');
    await next();
  });
  app.get('/core', (c) => respond(c, '{}', 200, { vary: 'X-Key', 'Content-Type': 'application/json' }));
  app.get('/text', (c) => c.text('plain', 200, { Vary: 'X-Key' }));

  it.each(['/core', '/text'])('%s: gone from the response, the handler’s value too', async (path) => {
    const res = await app.request(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('Vary')).toBeNull();
    expect(res.headers.get('Svc-Request-Id')).toBeTruthy();
  });

  it('removes each of several names, on a plain object and on Headers alike', () => {
    const headers = new ResponseHeaders();
    headers.delete('vary');
    headers.delete('etag');
    expect(headers.merged({ Vary: 'X-Key', ETag: '"y"', 'Content-Type': 'text/plain' })).toEqual({ 'content-type': 'text/plain' });
    const target = new Headers({ Vary: 'X-Key', ETag: '"y"', 'Content-Type': 'text/plain' });
    headers.applyTo(target);
    expect([...target.keys()]).toEqual(['content-type']);
  });

  it('a later set of the same name is sent', async () => {
    const headers = new ResponseHeaders();
    headers.delete('vary');
    headers.set('vary', 'Authorization');
    expect(headers.merged({ Vary: 'X-Key' })).toEqual({ vary: 'Authorization' });
    const target = new Headers({ Vary: 'X-Key' });
    headers.applyTo(target);
    expect(target.get('vary')).toBe('Authorization');
  });
});

describe('respond without the policies', () => {
  it('builds the response with the handler’s headers alone', async () => {
    const app = new Hono<AppEnv>();
    app.get('/', (c) => respond(c, 'plain', 203, { 'Content-Type': 'text/plain', ETag: '"x"' }));
    const res = await app.request('/');
    expect(res.status).toBe(203);
    expect([res.headers.get('content-type'), res.headers.get('etag'), await res.text()]).toEqual(['text/plain', '"x"', 'plain']);
  });
});

describe('the size of the body sent (the access line’s response_bytes)', () => {
  /** Each answer's size as the policies count it, next to the bytes the client received. */
  function sized(route: (c: Context<AppEnv>) => Response) {
    const counted: number[] = [];
    const app = new Hono<AppEnv>();
    app.use(requestId(), async (c, next) => {
      await next();
      counted.push(await bodyBytes(c));
    });
    app.get('/', route);
    return async () => {
      const res = await app.request('/');
      const received = (await res.arrayBuffer()).byteLength;
      return { counted: counted.at(-1), received };
    };
  }

  const texts = [
    '',
    'plain',
    '\u007f\u0080',
    'é',
    '€uro',
    'a😀b',
    '\ud83d',
    '\ud83dx',
    '\ud83dé',
    '\ud83d€',
    'x\udc00',
    '\udc00\udc00',
    '€\udc00',
    '\ud800\udc00',
    '\udbff\udfff',
    '\u07ff\u0800\uffff',
  ];
  // Named by their UTF-16 code units in hex: a name holding lone surrogates or escapes is not
  // matched back to its test when a runner picks tests by name (Stryker's does, per mutant).
  const units = (text: string) =>
    text
      .split('')
      .map((ch) => ch.charCodeAt(0).toString(16).padStart(4, '0'))
      .join(' ') || 'nothing';
  it.each(texts.map((text) => [units(text), text]))('respond with %s: its UTF-8 length', async (_units, text) => {
    const { counted, received } = await sized((c) => respond(c, text, 200, {}))();
    expect(counted).toBe(new TextEncoder().encode(text).byteLength);
    expect(counted).toBe(received);
  });

  it.each([
    ['bytes', (c: Context<AppEnv>) => respond(c, new Uint8Array([1, 2, 3, 4, 5]), 200, {})],
    ['a buffer', (c: Context<AppEnv>) => respond(c, new Uint8Array([1, 2, 3]).buffer, 200, {})],
    ['no body', (c: Context<AppEnv>) => respond(c, null, 304, {})],
    ['a stream', (c: Context<AppEnv>) => respond(c, new Blob(['streamed €']).stream(), 200, {})],
    ['text built by Hono', (c: Context<AppEnv>) => c.text('hono’s own')],
    ['a redirect', (c: Context<AppEnv>) => c.redirect('/elsewhere', 301)],
    ['a Content-Length that is no number', () => new Response('twelve bytes', { headers: { 'Content-Length': '12x' } })],
    ['a Content-Length after other text', () => new Response('twelve bytes', { headers: { 'Content-Length': 'x12' } })],
    ['a Content-Length as sent', () => new Response('twelve bytes', { headers: { 'Content-Length': '12' } })],
    ['no body, built by Hono', (c: Context<AppEnv>) => c.body(null, 204)],
  ])('%s: the bytes sent', async (_name, route) => {
    const { counted, received } = await sized(route)();
    expect(counted).toBe(received);
  });
});
