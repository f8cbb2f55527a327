import { securedOperations } from '../../openapi/edit';
import type { VersionChange } from '../version';

/** Browser access (member tokens from any origin, docs/reference/requests.md) came with v2; v1 never had it. */
export const noCors: VersionChange = {
  name: 'no-cors',
  description: 'Browsers get no CORS answers: preflights and responses carry no `Access-Control-*` headers.',
  withoutCors: true,
  describe(doc) {
    // OPTIONS is then a method the path does not serve (its 405 is on the path). The description
    // itself stays open to browsers: it is not the version's data.
    for (const { path } of securedOperations(doc)) delete doc.paths[path]!.options;
  },
};
