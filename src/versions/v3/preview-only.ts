import { securedOperations } from '../../openapi/edit';
import { errorResponse, responseRef } from '../../openapi/names';
import type { VersionChange } from '../version';

export const previewOnly: VersionChange = {
  name: 'preview-only',
  description: 'A closed preview: only credentials enrolled in the v3 preview may call; others get 403 auth/forbidden.',
  previewOnly: true,
  describe(doc) {
    doc.info.description = `**Closed preview**: only Bearer credentials enrolled in the preview may call; others get 403.\n\n${doc.info.description}`;
    // The preview check runs with authentication, before the route: any method may meet it.
    for (const { operation } of securedOperations(doc)) operation.responses['403'] = responseRef(errorResponse(403));
  },
};
