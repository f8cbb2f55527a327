/**
 * How long an upstream 200 may be served from the cache, from its `Cache-Control`:
 * `no-store`, `no-cache` and `private` mean not at all (`undefined`: the gateway does not
 * revalidate, and it is a shared cache); `s-maxage`, else `max-age`, gives the TTL, capped by the
 * configured default TTL; without either the default TTL applies.
 */
export function freshnessMs(cacheControl: string | null, defaultTtlMs: number): number | undefined {
  const directives = new Map<string, string | undefined>();
  for (const part of (cacheControl ?? '').split(',')) {
    const [name, value] = part.split('=', 2).map((s) => s.trim());
    if (name) directives.set(name.toLowerCase(), value?.replace(/^"|"$/g, ''));
  }
  if (directives.has('no-store') || directives.has('no-cache') || directives.has('private')) return undefined;
  const maxAge = directives.get('s-maxage') ?? directives.get('max-age');
  if (maxAge !== undefined && /^\d+$/.test(maxAge)) return Math.min(Number(maxAge) * 1000, defaultTtlMs);
  return defaultTtlMs;
}

/** `Retry-After` (delay-seconds or an HTTP-date) as whole seconds from `now`; undefined when absent or invalid. */
export function retryAfterSeconds(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}
