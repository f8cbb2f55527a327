/** Settings whose values are checked beyond their kind: host lists, the upstream base, the Redis URL. */
import { isHostEntry } from '../core/host-name';
import { ConfigError } from './error';

/** `PUBLIC_HOSTS`: comma-separated, lower-cased; an entry no request could name stops start-up. */
export function publicHosts(raw: string | undefined): string[] {
  const hosts = (raw ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h.length > 0);
  const bad = hosts.find((h) => !isHostEntry(h));
  if (bad !== undefined) {
    throw new ConfigError(
      'PUBLIC_HOSTS',
      `holds ${JSON.stringify(bad)}, not a host[:port]: a DNS name (punycode for other scripts), an IPv4 address or a bracketed IPv6 literal, then an optional port from 1 to 65535`,
    );
  }
  return hosts;
}

/**
 * `UPSTREAM_URL` is the backend's base: the gateway appends `/v2/...` itself, so a base that
 * already ends in a version segment would ask for `/v2/v2/...` (502 on lists, 404 on details).
 */
export function upstreamBase(base: string | undefined): string | undefined {
  const versioned = base && /^(.*?)(\/api)?\/v\d+$/i.exec(new URL(base).pathname.replace(/\/+$/, ''));
  if (!base || !versioned) return base;
  const corrected = new URL(base);
  corrected.pathname = versioned[1] || '/';
  if (corrected.password) corrected.password = 'PASSWORD';
  throw new ConfigError(
    'UPSTREAM_URL',
    `must be the backend's base URL without a version segment (the gateway adds /v2): set UPSTREAM_URL=${corrected.href.replace(/\/+$/, '')}`,
  );
}

/** `REDIS_URL`, refused at start-up unless it is a redis:// or rediss:// URL (never echoed: it may hold a password). */
export function redisUrl(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  let parsed: URL | undefined;
  try {
    parsed = new URL(raw);
  } catch {
    parsed = undefined;
  }
  if (parsed?.protocol !== 'redis:' && parsed?.protocol !== 'rediss:') throw new ConfigError('REDIS_URL', 'must be a redis:// or rediss:// URL');
  return raw;
}
