import type { Config } from '../config';
import { entryBytes } from '../services/cache/entry-size';
import { VALID_HOST } from '../core/host-name';
import { pathname } from '../core/query-string';
import { ApiError } from '../core/api-error';
import { HEALTH_PATHS } from './health-paths';
import type { Policy } from './policy';

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

/** What the host policy concluded of a scheme and authority. */
interface HostVerdict {
  /** `host[:port]` as the URL parser normalised it. */
  host: string;
  valid: boolean;
  listed: boolean;
}

/** Distinct hosts remembered: the few a gateway is reached by, not whatever a scanner sends. */
const KNOWN_HOSTS = 256;
/** Bytes their names may take: a `Host` is whatever a caller sends, up to the size of a header. */
export const KNOWN_HOST_BYTES = 256 * 1024;
/** A verdict's own bytes beside its key. */
const VERDICT_BYTES = 64;

/**
 * The effective host (docs/reference/requests.md, RFC 9112 3.2.2): the request target's authority when
 * the target is in absolute form, otherwise `Host`. Both runtimes build the request URL that way
 * (the Node adapter takes an absolute target as the URL and ignores `Host`; Workers routes by
 * host), so the URL's host is the effective host. Not a valid `host[:port]`: 400. Not in
 * `PUBLIC_HOSTS` (when set): 421, except on the health paths, which load balancers probe by
 * address. The host that passes is the only one later steps build absolute URLs from (`host`).
 * The verdict depends only on the URL's scheme and authority, so it is reached once per
 * distinct one rather than by parsing every request's URL.
 */
export const hostCheck = (config: Pick<Config, 'hostile'>): Policy => {
  const hosts = config.hostile.publicHosts.map(parseEntry);
  const known = new Map<string, HostVerdict>();
  let knownBytes = 0;
  const verdictOf = (url: string): HostVerdict => {
    // Everything up to the path's first `/`: it holds the whole authority (which ends at the
    // first `/`, `?`, `#` or a backslash), so every URL that starts with it has the same host.
    const slash = url.indexOf('/', url.indexOf('://') + 3);
    const origin = slash < 0 ? url : url.slice(0, slash);
    let verdict = known.get(origin);
    if (verdict === undefined) {
      const parsed = new URL(url);
      verdict = { host: parsed.host, valid: VALID_HOST.test(parsed.host), listed: hosts.length === 0 || isPublic(parsed, hosts) };
      const bytes = entryBytes(origin, VERDICT_BYTES);
      if (known.size >= KNOWN_HOSTS || knownBytes + bytes > KNOWN_HOST_BYTES) {
        known.clear();
        knownBytes = 0;
      }
      known.set(origin, verdict);
      knownBytes += bytes;
    }
    return verdict;
  };
  return {
    before(c) {
      const url = c.req.url;
      const verdict = verdictOf(url);
      if (!verdict.valid) {
        throw new ApiError('svc/invalidParameter', 'The Host header (or the authority of an absolute request target) is not a valid host[:port].');
      }
      if (!verdict.listed && !HEALTH_PATHS.has(pathname(url))) {
        throw new ApiError('svc/misdirected', `This gateway does not answer for ${verdict.host.slice(0, 100)}; send the request to its public host name.`);
      }
      c.set('host', verdict.host);
      return undefined;
    },
  };
};
