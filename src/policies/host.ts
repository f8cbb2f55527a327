import { createMiddleware } from 'hono/factory';
import type { Config } from '../config';
import type { AppEnv } from '../env';
import { ApiError } from '../errors/api-error';
import { HEALTH_PATHS } from './health-paths';

/**
 * A DNS name (labels of letters, digits, `-` and `_`, no label starting or ending with `-`), an
 * IPv4 address or a bracketed IPv6 literal, then an optional port: `host[:port]` as the URL
 * parser normalised it (lower case, punycode, default port dropped). The parser alone lets
 * through names no DNS holds (`a{b`, `a*b`), which must never reach a `Location`.
 */
const VALID_HOST =
  /^(?:(?=[^:]{1,253}(?::|$))[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

interface PublicHost {
  hostname: string;
  /** Absent: any port. */
  port: string | undefined;
}

/** `api.example.com`, `api.example.com:8443`, `[::1]:8787` as PUBLIC_HOSTS lists them. */
function parseEntry(entry: string): PublicHost {
  const match = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(entry);
  return { hostname: (match?.[1] ?? entry).replace(/\.$/, ''), port: match?.[2] };
}

/**
 * Whether `url`'s host is one of the public hosts. A port-less entry matches any port; one with a
 * port matches that port, and also a Host without one when it is 80 or 443, since behind a
 * TLS-terminating proxy the gateway cannot tell which of the two defaults the client used.
 */
function isPublic(url: URL, hosts: readonly PublicHost[]): boolean {
  const hostname = url.hostname.replace(/\.$/, '');
  return hosts.some(
    (h) => h.hostname === hostname && (h.port === undefined || h.port === url.port || (url.port === '' && (h.port === '80' || h.port === '443'))),
  );
}

/**
 * The effective host (CONTRACT section 18, RFC 9112 3.2.2): the request target's authority when
 * the target is in absolute form, otherwise `Host`. Both runtimes build the request URL that way
 * (the Node adapter takes an absolute target as the URL and ignores `Host`; Workers routes by
 * host), so the URL's host is the effective host. Not a valid `host[:port]`: 400. Not in
 * `PUBLIC_HOSTS` (when set): 421, except on the health paths, which load balancers probe by
 * address. The host that passes is the only one later steps build absolute URLs from (`host`).
 */
export const hostCheck = (config: Pick<Config, 'hostile'>) => {
  const hosts = config.hostile.publicHosts.map(parseEntry);
  return createMiddleware<AppEnv>(async (c, next) => {
    const url = new URL(c.req.url);
    if (!VALID_HOST.test(url.host)) {
      throw new ApiError('svc/invalidParameter', 'The Host header (or the authority of an absolute request target) is not a valid host[:port].');
    }
    if (hosts.length > 0 && !HEALTH_PATHS.has(url.pathname) && !isPublic(url, hosts)) {
      throw new ApiError('svc/misdirected', `This gateway does not answer for ${url.host.slice(0, 100)}; send the request to its public host name.`);
    }
    c.set('host', url.host);
    await next();
  });
};
