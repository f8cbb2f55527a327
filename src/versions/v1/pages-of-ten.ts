import { RESOURCE_NAMES } from '../../core/resources';
import { collectionSchema } from '../../openapi/names';
import type { JsonSchema } from '../../openapi/types';
import { PAGE_SIZE } from '../../services/record-source';
import type { VersionChange } from '../version';

const V1_PAGE_SIZE = 10;

/**
 * v1 page `p` is records `(p-1)*10 .. p*10-1` of the very same ordered result: it is read from
 * core page `ceil(p/2)` (one core call, never the whole result) and cut to its half. The envelope
 * builds links and the past-the-last 404 from the walked page, so they come out in v1 numbers.
 */
export const pagesOfTen: VersionChange = {
  name: 'pages-of-ten',
  description: 'Pages hold 10 records instead of 20, in the same order: v1 page `p` is the first or second half of v2 page `ceil(p/2)`.',
  listQuery: (query) => ({ ...query, page: Math.ceil((query.page * V1_PAGE_SIZE) / PAGE_SIZE) }),
  page(page, requested) {
    const start = (requested.page - 1) * V1_PAGE_SIZE - (page.page - 1) * page.perPage;
    return { items: page.items.slice(start, start + V1_PAGE_SIZE), total: page.total, page: requested.page, perPage: V1_PAGE_SIZE };
  },
  describe(doc) {
    type Props = Record<string, JsonSchema>;
    for (const resource of RESOURCE_NAMES) (doc.components.schemas[collectionSchema(resource)]!.properties as Props).data!.maxItems = V1_PAGE_SIZE;
    const meta = doc.components.schemas.CollectionMeta!.properties as Props;
    if (meta.per_page) meta.per_page = { type: 'integer', const: V1_PAGE_SIZE, description: `Always ${V1_PAGE_SIZE}.` };
    doc.components.parameters.page!.description = `1-based page number; absent means 1. Pages hold ${V1_PAGE_SIZE} records.`;
  },
};
