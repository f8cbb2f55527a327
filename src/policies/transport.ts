import type { Context } from 'hono';
import type { Config } from '../config';
import type { AppEnv, Services } from '../env';
import { ApiError } from '../core/api-error';
import { pathname } from '../core/query-string';
import type { ConnectionInfo } from '../services/connection';
import { HEALTH_PATHS } from './health-paths';
import { uncacheable } from './caching';
import type { Policy } from './policy';
import { policyHeaders } from './response-headers';

/** One year: what browsers need to keep going straight to https. */
export const HSTS = 'max-age=31536000';

/** `127.0.0.0/8`, `::1` and IPv4-mapped `::ffff:127.x.x.x`, as Node reports peer addresses. */
export function isLoopbackAddress(address: string): boolean {
  const v4 = address.toLowerCase().replace(/^::ffff:/, '');
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4) || address === '::1';
}

/** `localhost`, `*.localhost` (RFC 6761) or a loopback address, as a URL's hostname spells it. */
function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || isLoopbackAddress(host.replace(/^\[(.*)\]$/, '$1'));
}

/**
 * Whether a request counts as https (docs/reference/requests.md): received over TLS; or, behind a trusted
 * proxy, `X-Forwarded-Proto: https`; or a direct loopback connection (local development, as
 * browsers treat localhost). Where no peer address is visible (Workers), a loopback URL host
 * (`wrangler dev`) stands in for the peer.
 */
export function isSecure(connection: ConnectionInfo, url: string, forwardedProto: string | undefined, trustProxy: boolean): boolean {
  if (connection.tls) return true;
  if (forwardedProto !== undefined) return trustProxy && saysHttps(forwardedProto);
  return connection.remoteAddress !== undefined ? isLoopbackAddress(connection.remoteAddress) : isLoopbackHost(new URL(url).hostname);
}

/** Whether `X-Forwarded-Proto` says https: proxies append, so the last value is the one our own proxy wrote. */
const saysHttps = (forwardedProto: string): boolean => forwardedProto.split(',').pop()!.trim().toLowerCase() === 'https';

/**
 * Plain HTTP is redirected to https before `HTTPS_REDIRECT_UNTIL` and refused with 426 from then
 * on; secure responses carry HSTS. Runs after the host policy (`host`) and before authentication, so a plain-HTTP caller learns
 * about https before anything about its credential.
 */
export const transport = (
  config: Pick<Config, 'trustProxy' | 'httpsRedirectUntil'>,
  services: Pick<Services, 'connection' | 'header' | 'clock' | 'log'>,
): Policy => {
  const hint = untrustedProxyHint(config, services);
  return {
    before(c) {
      const forwardedProto = services.header(c, 'x-forwarded-proto');
      const secure = isSecure(services.connection(c), c.req.url, forwardedProto, config.trustProxy);
      if (secure) {
        policyHeaders(c).set('strict-transport-security', HSTS);
        return undefined;
      }
      const path = pathname(c.req.url);
      if (HEALTH_PATHS.has(path)) return undefined;
      hint(forwardedProto);
      if (services.clock.now() < config.httpsRedirectUntil) return redirectToHttps(c);
      throw new ApiError('svc/httpsRequired', `Plain HTTP is no longer served; send the request to https://${c.get('host')}${path}.`, {
        Upgrade: 'TLS/1.2, HTTP/1.1',
        Connection: 'Upgrade',
      });
    },
  };
};

/** At most one hint a minute: a proxy in front sends every request this way. */
const HINT_INTERVAL_MS = 60_000;

/**
 * Behind a TLS-terminating proxy without `TRUST_PROXY`, every request arrives as plain HTTP and is
 * redirected or refused; `X-Forwarded-Proto: https` on such a request is the sign, so the log says
 * which setting to change.
 */
export function untrustedProxyHint(
  config: Pick<Config, 'trustProxy'>,
  services: Pick<Services, 'clock' | 'log'>,
): (forwardedProto: string | undefined) => void {
  if (config.trustProxy) return () => {};
  let last = Number.NEGATIVE_INFINITY;
  return (forwardedProto) => {
    if (forwardedProto === undefined || !saysHttps(forwardedProto)) return;
    const now = services.clock.now();
    if (now - last < HINT_INTERVAL_MS) return;
    last = now;
    services.log({
      level: 'warn',
      message:
        'A request sent over https to a proxy reached the gateway as plain HTTP: behind a TLS-terminating proxy that sets X-Forwarded-Proto, set TRUST_PROXY=true (and listen only where the proxy can reach, e.g. HOST=127.0.0.1).',
    });
  };
}

/**
 * 301 for GET and HEAD, 308 for other methods so the method and body are kept. The target is the
 * host the host policy let through (never a forwarded host header) with the path and query of
 * the request byte for byte. No cache keeps it (docs/reference/requests.md): a query may hold a
 * credential, and the answer changes when `HTTPS_REDIRECT_UNTIL` passes.
 */
function redirectToHttps(c: Context<AppEnv>): Response {
  const permanent = c.req.method === 'GET' || c.req.method === 'HEAD' ? 301 : 308;
  const url = new URL(c.req.url);
  uncacheable(c);
  return c.redirect(`https://${c.get('host')}${url.pathname}${url.search}`, permanent);
}
