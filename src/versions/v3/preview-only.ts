import type { VersionChange } from '../version';

export const previewOnly: VersionChange = {
  name: 'preview-only',
  description: 'A closed preview: only credentials enrolled in the v3 preview may call; others get 403 auth/forbidden.',
  previewOnly: true,
  describe(doc) {
    // Every secured operation already lists 403 (a credential that does not reach the resource);
    // what the preview adds is who may call at all.
    doc.info.description = `**Closed preview**: only Bearer credentials enrolled in the preview may call; others get 403.\n\n${doc.info.description}`;
  },
};
