import { methodNotAllowed, READ_ONLY } from '../routes/method-not-allowed';
import { TOKEN_PATH } from '../routes/oauth-token';
import type { Policy } from './policy';

/**
 * Methods some route serves or answers itself (PUT, PATCH and DELETE with the route's 405, OPTIONS
 * with CORS). Any other (TRACE, CONNECT, WebDAV's, extensions) is refused on every path, before
 * transport or authentication looks at it, so it never reaches a route or a backend.
 */
const KNOWN = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The methods a path serves: the token endpoint takes POST, everything else is read-only. */
export const allowedMethods = (path: string): string => (path === TOKEN_PATH ? 'POST' : READ_ONLY);

export const methods = (): Policy => ({
  before(c) {
    if (!KNOWN.has(c.req.method)) methodNotAllowed(allowedMethods(c.req.path))(c);
    return undefined;
  },
});
