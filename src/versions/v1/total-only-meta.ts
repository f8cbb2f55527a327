import type { JsonSchema } from '../../openapi/types';
import type { JsonObject, VersionChange } from '../version';

export const totalOnlyMeta: VersionChange = {
  name: 'total-only-meta',
  description: 'Collection `meta` holds only `total`; v1 clients page by following `links`.',
  collection: (body) => ({ ...body, meta: { total: (body.meta as JsonObject).total } }),
  describe(doc) {
    const meta = doc.components.schemas.CollectionMeta!;
    meta.required = ['total'];
    meta.properties = { total: (meta.properties as Record<string, JsonSchema>).total };
  },
};
