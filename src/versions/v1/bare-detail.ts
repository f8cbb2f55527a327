import { RESOURCE_NAMES } from '../../core/resources';
import { detailSchema, recordSchema, schemaRef } from '../../openapi/names';
import type { JsonObject, VersionChange } from '../version';

export const bareDetail: VersionChange = {
  name: 'bare-detail',
  description: 'A detail response is the bare record, without the `data` wrapper and its `meta`.',
  detail: (body) => body.data as JsonObject,
  describe(doc) {
    for (const resource of RESOURCE_NAMES) doc.components.schemas[detailSchema(resource)] = schemaRef(recordSchema(resource));
  },
};
