import type { Context } from 'hono';
import type { AppEnv } from '../env';
import { ApiError } from '../core/api-error';
import { TOKEN_PATH } from '../core/oauth-paths';
import type { Version } from '../versions/version';
import { versionResolver } from '../versions/walker';
import { answersPreflight } from './cors';
import type { Policy } from './policy';

/**
 * Methods some route serves or some policy answers (OPTIONS with CORS); the others (TRACE,
 * CONNECT, WebDAV's, extensions) are refused on every path before transport or authentication
 * looks at them, so they never reach a route or a backend.
 */
const KNOWN = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** A set of methods a path serves, and its `Allow` spelling, each made once. */
interface Served {
  readonly methods: ReadonlySet<string>;
  readonly allow: string;
}
const served = (...methods: string[]): Served => ({ methods: new Set(methods), allow: methods.join(', ') });
const TOKEN_METHODS = served('POST');
const READ_METHODS = served('GET', 'HEAD');
const READ_AND_PREFLIGHT_METHODS = served('GET', 'HEAD', 'OPTIONS');

/**
 * The methods a path serves: POST at the token endpoint; elsewhere GET and HEAD, and OPTIONS where
 * CORS preflights are answered. The descriptions list exactly these operations.
 */
function servedAt(path: string, version: Version | undefined, base: string): Served {
  if (path === TOKEN_PATH) return TOKEN_METHODS;
  return answersPreflight(version, base, path) ? READ_AND_PREFLIGHT_METHODS : READ_METHODS;
}

/** The methods a path serves, as its `Allow`. */
export function allowedMethods(path: string, version: Version | undefined, base: string): string {
  return servedAt(path, version, base).allow;
}

/** The same for a bare path, before any policy has resolved its version (Node's CONNECT). */
export function allowedAt(versions: readonly Version[], path: string): string {
  const resolved = versionResolver(versions)(path);
  return allowedMethods(path, resolved?.version, resolved?.base ?? '');
}

/** `GET, HEAD or OPTIONS`: the methods as a caller reads them. */
export const orList = (allow: string): string => allow.replace(/, (?=[^,]*$)/, ' or ');

function refuse(c: Context<AppEnv>): never {
  const allow = allowedMethods(c.req.path, c.get('version'), c.get('base'));
  throw new ApiError('svc/methodNotAllowed', `${c.req.method.slice(0, 20)} is not allowed here; use ${orList(allow)}.`, { Allow: allow });
}

/** A method no route serves anywhere: refused first, on every path. */
export const unknownMethods = (): Policy => ({
  before(c) {
    if (!KNOWN.has(c.req.method)) refuse(c);
    return undefined;
  },
});

/**
 * A method the path does not serve: refused after transport (plain HTTP is redirected whatever
 * the method), CORS (which answers preflights) and retirement (a retired version answers 410 to
 * everything), and before authentication, so a caller learns what the path serves without a
 * credential and no method the description leaves out answers anything but 405.
 */
export const servedMethods = (): Policy => ({
  before(c) {
    if (!servedAt(c.req.path, c.get('version'), c.get('base')).methods.has(c.req.method)) refuse(c);
    return undefined;
  },
});
