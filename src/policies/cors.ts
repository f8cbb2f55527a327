import type { Context } from 'hono';
import { cors } from 'hono/cors';
import type { AppEnv } from '../env';
import { isDescriptionPath } from '../openapi/names';
import type { Version } from '../versions/version';
import { walk } from '../versions/walker';
import { NO_STORE } from '../core/cache-control';
import { asMiddleware, type Policy } from './policy';
import { policyHeaders } from './response-headers';
import { fetchHeader, type RequestHeader } from '../services/request-header';

/** Response headers a browser script may read: tracing, limits, caching and auth challenges. */
export const EXPOSED_HEADERS = ['Svc-Request-Id', 'RateLimit', 'RateLimit-Policy', 'Retry-After', 'ETag', 'Last-Modified', 'WWW-Authenticate'];

const EXPOSED = EXPOSED_HEADERS.join(',');

/**
 * Member tokens may be used from browsers (docs/reference/requests.md): any origin, the `Authorization`
 * header allowed, no cookies (so no `Access-Control-Allow-Credentials`, and `*` is safe).
 * Preflights are answered here, before authentication, so they need no credential.
 */
const answerCors = cors({
  origin: '*',
  allowMethods: ['GET', 'HEAD'],
  allowHeaders: ['Authorization', 'If-None-Match'],
  exposeHeaders: EXPOSED_HEADERS,
  maxAge: 7200,
});

/** Whether CORS is answered here. Every version's description is, so a reference page anywhere can load it. */
export const answersPreflight = (version: Version | undefined, base: string, path: string): boolean =>
  walk.answersCors(version) || isDescriptionPath(path, base);

/**
 * CORS on the versions that answer it (v2, v3; a version may opt out with a `withoutCors`
 * change), nothing on the token endpoint: browsers must not hold client secrets. An API key that
 * arrives from a browser (an `Origin` header) is still served, but its log line is flagged so
 * the project can be told to keep its key server-side.
 */
export const browsersPolicy = (header: RequestHeader = fetchHeader): Policy => ({
  before(c) {
    if (!answersPreflight(c.get('version'), c.get('base'), c.req.path)) return undefined;
    // A preflight carries no credential: answered here, before authentication.
    if (c.req.method === 'OPTIONS') {
      // Browsers keep a preflight by `Access-Control-Max-Age`; no HTTP cache needs it.
      policyHeaders(c).set('cache-control', NO_STORE);
      return answerPreflight(c);
    }
    const headers = policyHeaders(c);
    headers.set('access-control-allow-origin', '*');
    headers.set('access-control-expose-headers', EXPOSED);
    return undefined;
  },
  // Only a request from a browser (an `Origin` header) can be flagged, once authenticated.
  after(c) {
    if (header(c, 'origin') !== undefined) flagApiKeyFromBrowser(c);
  },
});

export const browsers = () => asMiddleware(browsersPolicy());

/** Hono's CORS middleware answers a preflight itself, without going on. */
async function answerPreflight(c: Context<AppEnv>): Promise<Response | undefined> {
  const answer = await answerCors(c, async () => {});
  return answer ?? c.res;
}

function flagApiKeyFromBrowser(c: Context<AppEnv>): void {
  if (c.get('caller')?.principal.kind === 'project') c.get('logFlags').push('apiKeyFromBrowser');
}
