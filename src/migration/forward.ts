import { isCredentialName, pairName, rawQueryPairs } from '../core/query-string';

/**
 * The path and query the legacy backend is asked for: the caller's path below its base and its
 * query in its own order and encoding, credential parameters removed (`/species?q=oak&page=2`).
 */
export function forwardedTarget(url: string, base: string): string {
  const path = new URL(url).pathname.slice(base.length);
  // Every name a credential goes by, in any letter case, whether or not the gateway reads it.
  const kept = rawQueryPairs(url).filter((pair) => !isCredentialName(pairName(pair)));
  return kept.length > 0 ? `${path}?${kept.join('&')}` : path;
}

/**
 * The legacy backend's `links` made the caller's: an absolute link under `LEGACY_V1_URL`, or a
 * path under its base path, is moved to the base the caller used (`/v1` or `/api/v1`).
 */
export function rewriteLinks(body: unknown, legacyUrl: string, base: string): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const links = (body as Record<string, unknown>).links;
  if (typeof links !== 'object' || links === null || Array.isArray(links)) return body;
  const legacyPath = new URL(legacyUrl).pathname.replace(/\/+$/, '');
  const rewrite = (link: string): string => {
    for (const prefix of [legacyUrl, legacyPath]) {
      if (link.startsWith(prefix) && /^[/?]/.test(link.slice(prefix.length))) return base + link.slice(prefix.length);
    }
    return link;
  };
  const rewritten = Object.fromEntries(Object.entries(links).map(([rel, link]) => [rel, typeof link === 'string' ? rewrite(link) : link]));
  return { ...(body as Record<string, unknown>), links: rewritten };
}
