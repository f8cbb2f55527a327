/**
 * Property-based fuzzing of the Node server over raw loopback sockets (docs/reference/requests.md):
 * arbitrary methods, HTTP versions, targets, query strings, header names and values, with the demo
 * secrets in credential places. Every answer must be 2xx-4xx (501 only for a method Node does not
 * know) with `Svc-Request-Id`, an error body in its version's shape, within a time bound; no log
 * line may hold a secret.
 *
 *   FUZZ_SEED=<integer>  another sequence of requests (default: a fixed seed, so CI runs are repeatable)
 *   FUZZ_RUNS=<integer>  requests per run (default 500; e.g. 20000 for a long local run)
 *
 * The gateway is `src/node.ts` itself, started as a process, so the real server set-up is tested.
 */
import { METHODS } from 'node:http';
import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayProcess, startGatewayProcess } from '../../../tools/processes';

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const RUNS = Number(process.env.FUZZ_RUNS ?? 500);
/** Time for one run of the property (long local runs get more). */
const BUDGET_MS = Math.max(240_000, RUNS * 100);
/** A complete answer to a complete request, on a loaded 2-core machine. */
const ANSWER_WITHIN_MS = 10_000;
const SIGNING_SECRET = 'fuzz-signing-secret-value';

let gateway: GatewayProcess | undefined;
let port = 0;
let logLines: string[] = [];
/** Every secret of the demo store, the Basic credential carrying one, a minted token and the signing secret. */
const secrets: string[] = [
  'demo-project-key',
  'demo-species-only-key',
  'demo-personal-token',
  'demo-client-secret',
  Buffer.from('demo-client:demo-client-secret').toString('base64'),
  SIGNING_SECRET,
];

beforeAll(async () => {
  gateway = await startGatewayProcess({
    TOKEN_SIGNING_SECRET: SIGNING_SECRET,
    // Limits no run reaches, so every request is judged on its own rather than throttled.
    RATE_LIMIT_PER_MINUTE: '100000000',
    TOKEN_RATE_LIMIT_PER_MINUTE: '100000000',
    AUTH_FAILURES_PER_MINUTE: '100000000',
  });
  port = Number(new URL(gateway.origin).port);
  logLines = gateway.lines;
  const minted = await exchange(
    serialize({
      method: 'POST',
      target: '/oauth/token',
      version: 'HTTP/1.1',
      headers: [
        ['Host', 'localhost'],
        ['Content-Type', 'application/x-www-form-urlencoded'],
      ],
      body: 'grant_type=client_credentials&client_id=demo-client&client_secret=demo-client-secret',
    }),
  );
  if (minted.kind !== 'answer' || minted.status !== 200) throw new Error(`no token: ${JSON.stringify(minted)}`);
  secrets.push(JSON.parse(minted.body).access_token);
});

afterAll(() => gateway?.stop());

// ---------------------------------------------------------------------------------------------
// Requests as bytes: every string below is a byte string (one char per byte, written as latin1).

interface RawRequest {
  method: string;
  target: string;
  version: string;
  headers: Array<[string, string]>;
  body: string;
  /** Made hostile in one part (method, version, target, Host, a header): the HTTP layer may answer it. */
  hostile?: boolean;
}

const utf8 = (text: string) => Buffer.from(text, 'utf8').toString('latin1');
/** Percent-encodes every byte of the UTF-8 of `text` but the unreserved ones (lone surrogates become U+FFFD). */
const pct = (text: string) =>
  [...Buffer.from(text, 'utf8')]
    .map((b) => (/[A-Za-z0-9\-._~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');

function serialize(r: RawRequest): Buffer {
  const head = [`${r.method} ${r.target} ${r.version}`, ...r.headers.map(([n, v]) => `${n}: ${v}`), 'Connection: close'];
  if (r.body || ['POST', 'PUT', 'PATCH'].includes(r.method)) head.push(`Content-Length: ${r.body.length}`);
  return Buffer.from(`${head.join('\r\n')}\r\n\r\n${r.body}`, 'latin1');
}

type Exchange =
  | { kind: 'answer'; status: number; headers: Record<string, string>; body: string; ms: number }
  | { kind: 'closed'; raw: string; ms: number }
  | { kind: 'timeout'; raw: string };

/** Sends `bytes` on a fresh connection and reads the whole answer (`Connection: close`), skipping 1xx. */
function exchange(bytes: Buffer): Promise<Exchange> {
  const started = performance.now();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1');
    const timer = setTimeout(
      () => (socket.destroy(), resolve({ kind: 'timeout', raw: Buffer.concat(chunks).toString('latin1').slice(0, 300) })),
      ANSWER_WITHIN_MS,
    );
    socket.on('error', () => {});
    socket.on('data', (c) => chunks.push(c));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parse(Buffer.concat(chunks).toString('latin1'), performance.now() - started));
    });
    // Not end(): a half-closed connection is a client that went away (Node aborts the request).
    socket.write(bytes);
  });
}

function parse(raw: string, ms: number): Exchange {
  let rest = raw;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    const status = /^HTTP\/1\.[01] (\d{3})/.exec(rest);
    if (end < 0 || !status) return { kind: 'closed', raw: raw.slice(0, 300), ms };
    const headers: Record<string, string> = {};
    for (const line of rest.slice(0, end).split('\r\n').slice(1)) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    rest = rest.slice(end + 4);
    const code = Number(status[1]);
    if (code >= 100 && code < 200) continue;
    const body = headers['transfer-encoding']?.toLowerCase() === 'chunked' ? dechunk(rest) : rest;
    return { kind: 'answer', status: code, headers, body: Buffer.from(body, 'latin1').toString('utf8'), ms };
  }
}

function dechunk(text: string): string {
  let out = '';
  for (let at = 0; ; ) {
    const eol = text.indexOf('\r\n', at);
    const size = parseInt(text.slice(at, eol), 16);
    if (eol < 0 || !(size > 0)) return out;
    out += text.slice(eol + 2, eol + 2 + size);
    at = eol + 2 + size + 2;
  }
}

// ---------------------------------------------------------------------------------------------
// Arbitraries.

const secret = () => fc.constantFrom(...secrets);
const anyText = fc.string({ unit: 'binary', maxLength: 40 });
const controlText = fc.string({ unit: fc.integer({ min: 0, max: 0x9f }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 8 });
const badEscapes = fc.constantFrom('%', '%G1', '%C3%28', '%FF', '%ED%A0%80', '%E2%82', '%00', '%%', '%2', '%C0%AF', '+', '%2B', '%CC%81', '%F4%90%80%80');

/** A query value: percent-encoded text (controls and accents included), raw bad escapes, or a huge one. */
const value = fc.oneof(
  { weight: 4, arbitrary: anyText.map(pct) },
  { weight: 2, arbitrary: controlText.map(pct) },
  { weight: 2, arbitrary: fc.array(fc.oneof(badEscapes, fc.constantFrom('abies', 'fir', '%C3%A9', '1'))).map((p) => p.join('')) },
  { weight: 1, arbitrary: fc.constantFrom('abies', 'balsam fir', '2', '0', '-1', '99999999999', 'asc', 'desc').map(pct) },
  { weight: 1, arbitrary: fc.integer({ min: 200, max: 3_000 }).map((n) => 'a'.repeat(n)) },
);
const paramName = fc.oneof(
  fc.constantFrom('q', 'page', 'order[name]', 'order[scientific_name]', 'order[year]', 'order[bogus]', 'order[', 'order%5Bname%5D', 'foo', '', 'q%00', 'PAGE'),
  anyText.map(pct),
);
/** A credential parameter, in any letter case, carrying a real secret. */
const credentialParam = fc
  .tuple(
    fc.constantFrom(
      'key',
      'token',
      'api_key',
      'apikey',
      'access_token',
      'client_secret',
      'password',
      'authorization',
      'x-api-key',
      'x-key',
      'KEY',
      'Token',
      'Api_Key',
      'Password',
    ),
    secret(),
  )
  .map(([n, s]) => `${n}=${pct(s)}`);
const pair = fc.tuple(paramName, value).map(([n, v]) => `${n}=${v}`);
const query = fc
  .array(
    fc.oneof(
      { weight: 3, arbitrary: pair.map((p) => [p]) },
      { weight: 1, arbitrary: fc.tuple(pair, fc.integer({ min: 2, max: 20 })).map(([p, n]) => Array<string>(n).fill(p)) },
      { weight: 2, arbitrary: credentialParam.map((p) => [p]) },
    ),
    { maxLength: 6 },
  )
  .map((groups) => groups.flat().join('&'));

const knownPath = fc.constantFrom(
  '/v1/species',
  '/api/v1/species',
  '/v1/species/ABBA',
  '/v1/genus',
  '/v1/families/Pinaceae/genus',
  '/v2/species',
  '/v3/species',
  '/v2/species/ABBA',
  '/v2/genus/Abies/species',
  '/v2/families',
  '/v2/plants',
  '/v2/plants/ABBA/species',
  '/healthz',
  '/readyz',
  '/oauth/token',
  '/docs',
  '/v2/openapi.json',
  '/',
  '/v2',
  '/v1',
  '/v2/species/',
  '/v2/species/%00',
  '/v2/species/..%2F..%2Fetc%2Fpasswd',
  '/v2//species',
  '/v4/species',
  '/api/v2/species',
  '/V2/SPECIES',
);
const segment = fc.oneof(anyText.map(pct), badEscapes, fc.constantFrom('species', 'genus', 'ABBA', '..', '.', ''));
const path = fc.oneof(
  { weight: 3, arbitrary: knownPath },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('/v1/', '/v2/', '/v3/', '/'), fc.array(segment, { maxLength: 4 })).map(([p, s]) => p + s.join('/')) },
);

const originTarget = fc.tuple(path, query).map(([p, q]) => (q ? `${p}?${q}` : p));
const goodTarget = fc.oneof(
  { weight: 9, arbitrary: originTarget },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('http://localhost', 'http://127.0.0.1'), originTarget).map(([a, t]) => a + t) },
);
const goodMethod = fc.oneof({ weight: 6, arbitrary: fc.constant('GET') }, { weight: 4, arbitrary: fc.constantFrom(...METHODS.filter((m) => m !== 'CONNECT')) });
const goodVersion = fc.constantFrom('HTTP/1.1', 'HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0');
const goodHost = fc.constantFrom<Array<[string, string]>>([['Host', 'localhost']], [['Host', '127.0.0.1']], [['Host', 'LOCALHOST']]);
const headerValue = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 60 }) },
  // UTF-8 (obs-text to HTTP) without the control characters no header value may hold.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point here.
  { weight: 1, arbitrary: anyText.map((t) => utf8(t.replace(/[\x00-\x1f\x7f]/g, ''))) },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 8_000 }).map((n) => 'v'.repeat(n)) },
);
const headerName = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'Accept',
      'Accept-Encoding',
      'If-None-Match',
      'If-Modified-Since',
      'Origin',
      'Content-Type',
      'User-Agent',
      'X-Forwarded-For',
      'Svc-Request-Id',
      'Access-Control-Request-Method',
      'Access-Control-Request-Headers',
      'Range',
      'Upgrade',
      'Accept-Language',
    ),
  },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,24}$/) },
);
/** A credential header, in any letter case and scheme, carrying a real secret. */
const credentialHeader = fc
  .tuple(
    fc.constantFrom('Authorization', 'authorization', 'AUTHORIZATION', 'X-Api-Key', 'x-key', 'X-KEY', 'Apikey', 'Token', 'X-Token'),
    fc.constantFrom('ApiKey ', 'Bearer ', 'bearer ', 'APIKEY  ', 'Basic ', 'Token ', ''),
    secret(),
  )
  .map(([n, scheme, s]): [string, string] => [n, scheme + s]);
/** A credential the gateway accepts (the minted token is read when generated, after start-up). */
const validCredential = fc.oneof(
  fc.constantFrom<[string, string]>(
    ['Authorization', 'ApiKey demo-project-key'],
    ['Authorization', 'Bearer demo-personal-token'],
    ['X-Api-Key', 'demo-project-key'],
    ['Authorization', 'apikey demo-species-only-key'],
  ),
  fc.constant(null).map((): [string, string] => ['Authorization', `Bearer ${secrets[secrets.length - 1]}`]),
);
const credentials = fc.oneof({ weight: 3, arbitrary: validCredential.map((c) => [c]) }, { weight: 2, arbitrary: fc.array(credentialHeader, { maxLength: 2 }) });
const body = fc.oneof(
  fc.constant(''),
  secret().map((s) => `grant_type=client_credentials&client_id=demo-client&client_secret=${pct(s)}`),
  anyText.map(utf8),
);

/** A request Node's parser takes as it is: known method, HTTP/1.x, a Host, valid header names and values. */
const wellFormed = fc
  .record({
    method: goodMethod,
    target: goodTarget,
    version: goodVersion,
    host: goodHost,
    headers: fc.array(fc.tuple(headerName, headerValue), { maxLength: 5 }),
    credentials,
    body,
  })
  .map(({ host, headers, credentials, ...r }): RawRequest => ({ ...r, headers: [...host, ...headers, ...credentials] }));

/** One part of a well-formed request made hostile. */
const badPart: fc.Arbitrary<(r: RawRequest) => RawRequest> = fc.oneof(
  fc.constantFrom('CONNECT', 'get', 'FOO', 'GETT', 'G\x00T', 'GET\x7f', '').map((method) => (r: RawRequest) => ({ ...r, method })),
  fc.stringMatching(/^[A-Z]{1,12}$/).map((method) => (r: RawRequest) => ({ ...r, method })),
  fc
    .constantFrom('HTTP/0.9', 'HTTP/2.0', 'HTTP/1.2', 'HTTP/3', 'http/1.1', 'HTXP/1.1', 'HTTP/1.1x', 'HTTP/11')
    .map((version) => (r: RawRequest) => ({ ...r, version })),
  fc
    .constantFrom(
      '*',
      'v2/species',
      '',
      'http://',
      'http:///v1/species',
      'https://evil.example/v2/species',
      '/v2/species?q=\x00',
      '/v2/species?q=\xff\xfe',
      '/v2/\x7fspecies',
      '/v2/species#frag',
      '/v2/species?q=a\tb',
      '/v2/species?q=\xc3\xa9',
    )
    .map((target) => (r: RawRequest) => ({ ...r, target })),
  fc
    .constantFrom<Array<[string, string]>>(
      [],
      [['Host', '']],
      [['Host', 'exa mple']],
      [['Host', 'a/b']],
      [['Host', '[::1']],
      [['Host', 'localhost:99999']],
      [['Host', utf8('☃.example')]],
      [
        ['Host', 'localhost'],
        ['Host', 'evil.example'],
      ],
    )
    .map((host) => (r: RawRequest) => ({ ...r, headers: [...host, ...r.headers.filter(([n]) => n !== 'Host')] })),
  fc
    .tuple(
      fc.constantFrom('Bad Name', 'X:Y', '\x01', 'X\x7fY', utf8('Ünï'), '(x)', 'Expect'),
      fc.oneof(controlText, fc.constantFrom('nothing', '100-continue')),
    )
    .map((h) => (r: RawRequest) => ({ ...r, headers: [...r.headers, h] })),
  fc.tuple(headerName, controlText).map((h) => (r: RawRequest) => ({ ...r, headers: [...r.headers, h] })),
  fc.integer({ min: 17_000, max: 40_000 }).map(
    (n) =>
      (r: RawRequest): RawRequest => ({ ...r, headers: [...r.headers, ['X-Big', 'v'.repeat(n)]] }),
  ),
);

const request = fc.oneof(
  { weight: 4, arbitrary: wellFormed },
  { weight: 1, arbitrary: fc.tuple(wellFormed, badPart).map(([r, bad]) => ({ ...bad(r), hostile: true })) },
);

// ---------------------------------------------------------------------------------------------
// The properties.

/**
 * The error shape an answer must have. A well-formed request gets its version's: v1 paths the v1
 * body, everything else a v2 problem (the token endpoint its RFC 6749 body or a problem). A hostile
 * or oversized one may be refused by the HTTP layer, whose answers are v2 problems, or reach the
 * app: on v1 paths either shape is right.
 */
function shapeOf(r: RawRequest): 'v1' | 'v2' | 'any' {
  // Node refuses a request line and headers past its limit (16 KiB) before the app sees them.
  const oversized = serialize(r).length - r.body.length > 15_000;
  // The path as routed: without the authority of an absolute form, with dot segments resolved.
  let path: string;
  try {
    path = new URL(r.target.replace(/^https?:\/\/[^/]+/, ''), 'http://localhost').pathname;
  } catch {
    return 'any';
  }
  const v1 = /^\/(api\/)?v1(\/|$)/.test(path);
  if (path === '/oauth/token' || (v1 && (r.hostile || oversized))) return 'any';
  return v1 ? 'v1' : 'v2';
}

function problemOf(r: RawRequest, x: Exchange): string | undefined {
  if (x.kind === 'timeout') return `no complete answer within ${ANSWER_WITHIN_MS} ms (got ${JSON.stringify(x.raw)})`;
  if (x.kind === 'closed') return `connection closed without an HTTP answer (got ${JSON.stringify(x.raw)})`;
  const unknownMethod = !METHODS.includes(r.method);
  if (!(x.status >= 200 && x.status < 500) && !(x.status === 501 && unknownMethod)) return `status ${x.status}`;
  if (!x.headers['svc-request-id']) return `no Svc-Request-Id (status ${x.status})`;
  if (x.status < 400 || r.method === 'HEAD') return undefined;
  let parsed: any;
  try {
    parsed = JSON.parse(x.body);
  } catch {
    return `error body is not JSON: ${JSON.stringify(x.body.slice(0, 200))}`;
  }
  const type = x.headers['content-type'] ?? '';
  const v2 = type.startsWith('application/problem+json') && typeof parsed?.code === 'string';
  const v1 = type.startsWith('application/json') && parsed?.statusCode === x.status && typeof parsed?.message === 'string';
  const oauth = typeof parsed?.error === 'string';
  const shape = shapeOf(r);
  if (shape === 'v2' && !v2) return `not a v2 problem (content-type ${type}): ${x.body.slice(0, 200)}`;
  if (shape === 'v1' && !v1) return `not a v1 error (content-type ${type}): ${x.body.slice(0, 200)}`;
  if (shape === 'any' && !(v1 || v2 || oauth)) return `no known error shape (content-type ${type}): ${x.body.slice(0, 200)}`;
  return undefined;
}

const show = (r: RawRequest) => JSON.stringify(serialize(r).toString('latin1').slice(0, 600));

describe(`fuzzing the Node server (seed ${SEED}, ${RUNS} runs)`, () => {
  it(
    "answers every request with 2xx-4xx, Svc-Request-Id and its version's error shape, in time",
    async () => {
      await fc.assert(
        fc.asyncProperty(request, async (r) => {
          const problem = problemOf(r, await exchange(serialize(r)));
          if (problem) throw new Error(`${problem}\n  request: ${show(r)}`);
        }),
        { seed: SEED, numRuns: RUNS, interruptAfterTimeLimit: BUDGET_MS },
      );
    },
    BUDGET_MS + 60_000,
  );

  it(
    'writes no secret to any log line',
    async () => {
      // Requests of their own, so this holds however far the property above got.
      const requests = fc.sample(request, { seed: SEED + 1, numRuns: RUNS });
      for (const r of requests) await exchange(serialize(r));
      // Whatever is still batched is written at exit.
      const { child } = gateway!;
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(undefined)));
      expect(logLines.filter((l) => l.includes('"request_id"')).length, 'the gateway logged the requests').toBeGreaterThan(RUNS / 4);
      const leaks = logLines.filter((line) => secrets.some((s) => line.includes(s)));
      expect(leaks.slice(0, 5), `${leaks.length} log lines hold a secret`).toEqual([]);
    },
    BUDGET_MS + 60_000,
  );
});
