import type { JsonObject, VersionChange } from '../version';

export const bareDetail: VersionChange = {
  name: 'bare-detail',
  description: 'A detail response is the bare record, without the `data` wrapper and its `meta`.',
  detail: (body) => body.data as JsonObject,
};
