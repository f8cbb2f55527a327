import type { VersionChange } from '../version';

export const previewOnly: VersionChange = {
  name: 'preview-only',
  description: 'A closed preview: only credentials enrolled in the v3 preview may call; others get 403 auth/forbidden.',
  previewOnly: true,
};
