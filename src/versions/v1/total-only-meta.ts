import type { JsonObject, VersionChange } from '../version';

export const totalOnlyMeta: VersionChange = {
  name: 'total-only-meta',
  description: 'Collection `meta` holds only `total`; v1 clients page by following `links`.',
  collection: (body) => ({ ...body, meta: { total: (body.meta as JsonObject).total } }),
};
