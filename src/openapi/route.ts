import { Hono } from 'hono';
import { etag } from 'hono/etag';
import type { Config } from '../config';
import type { AppEnv } from '../env';
import { PUBLIC } from '../core/cache-control';
import type { Version } from '../versions/version';
import { describeVersions } from './document';
import { DESCRIPTION_PATH } from './names';

/** A body served as it is, with a strong validator computed once. */
export interface StaticEntity {
  body: string;
  etag: string;
  /** The body's size in bytes, sent as `Content-Length` (the access line reads it from there). */
  length: string;
}

export async function staticEntity(body: string): Promise<StaticEntity> {
  const bytes = new TextEncoder().encode(body);
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return { body, etag: `"${[...digest.slice(0, 16)].map((b) => b.toString(16).padStart(2, '0')).join('')}"`, length: String(bytes.byteLength) };
}

/** Computes once, on first use, and keeps the promise: a value per app, never per request. */
export function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}

/**
 * `GET {base}/openapi.json` for every version and base (docs/reference/descriptions.md): no credential, not
 * rate-limited, cacheable for five minutes, 304 on a matching `If-None-Match`. The documents are
 * built on the first such request and then served from memory.
 */
export function descriptionRoutes(config: Pick<Config, 'docsUrl'>, versions: readonly Version[]): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  const entities = once(async () => {
    const out = new Map<string, StaticEntity>();
    for (const [base, doc] of describeVersions(config, versions)) out.set(base, await staticEntity(JSON.stringify(doc)));
    return out;
  });
  for (const version of versions) {
    for (const base of version.bases) {
      const path = `${base}${DESCRIPTION_PATH}`;
      router.get(path, etag(), async (c) => {
        const entity = (await entities()).get(base)!;
        return c.body(entity.body, 200, {
          'Content-Type': 'application/json',
          'Content-Length': entity.length,
          ETag: entity.etag,
          'Cache-Control': PUBLIC,
        });
      });
    }
  }
  return router;
}
