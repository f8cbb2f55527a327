import { securedOperations } from '../../openapi/edit';
import { notAllowedOperation } from '../../openapi/operations';
import type { VersionChange } from '../version';

/** Browser access (member tokens from any origin, CONTRACT section 14) came with v2; v1 never had it. */
export const noCors: VersionChange = {
  name: 'no-cors',
  description: 'Browsers get no CORS answers: preflights and responses carry no `Access-Control-*` headers.',
  withoutCors: true,
  describe(doc) {
    // A preflight is then one more method the path does not serve. The description itself stays
    // open to browsers: it is not the version's data.
    for (const { path, method, operation } of securedOperations(doc)) {
      if (method === 'get') doc.paths[path]!.options = notAllowedOperation('options', path, operation.operationId, true);
    }
  },
};
