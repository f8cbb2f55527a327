import type { Context } from 'hono';
import { cors } from 'hono/cors';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env';
import { isDescriptionPath } from '../openapi/names';
import { walk } from '../versions/walker';
import { withResponseHeaders, type ResponseHeaders } from './response-headers';

/** Response headers a browser script may read: tracing, limits, caching and auth challenges. */
export const EXPOSED_HEADERS = ['Svc-Request-Id', 'RateLimit', 'RateLimit-Policy', 'Retry-After', 'ETag', 'Last-Modified', 'WWW-Authenticate'];

const EXPOSED = EXPOSED_HEADERS.join(',');
const corsHeaders = (headers: ResponseHeaders) => {
  headers.set('Access-Control-Allow-Origin', '*');
  headers.set('Access-Control-Expose-Headers', EXPOSED);
};

/**
 * Member tokens may be used from browsers (CONTRACT section 14): any origin, the `Authorization`
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

/**
 * CORS on the versions that answer it (v2, v3; a version may opt out with a `withoutCors`
 * change), nothing on the token endpoint: browsers must not hold client secrets. An API key that
 * arrives from a browser (an `Origin` header) is still served, but its log line is flagged so
 * the project can be told to keep its key server-side.
 */
export const browsers = () =>
  createMiddleware<AppEnv>((c, next) => {
    // Every version's description is open to browsers, so a reference page anywhere can load it.
    const answers = walk.answersCors(c.get('version')) || isDescriptionPath(c.req.path, c.get('base'));
    // A preflight carries no credential, so there is nothing to flag.
    if (answers && c.req.method === 'OPTIONS') return answerCors(c, next);
    const done = answers ? withResponseHeaders(c, next, corsHeaders) : next();
    // Only a request from a browser (an `Origin` header) can be flagged, once authenticated.
    return c.req.header('Origin') === undefined ? done : done.then(() => flagApiKeyFromBrowser(c));
  });

function flagApiKeyFromBrowser(c: Context<AppEnv>): void {
  if (c.get('caller')?.principal.kind === 'project') c.get('logFlags').push('apiKeyFromBrowser');
}
