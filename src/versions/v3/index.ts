import type { Version } from '../version';
import { bearerOnly } from './bearer-only';
import { previewOnly } from './preview-only';

/** v3, the closed preview: the v2 core's resources and shapes under `/v3`, for preview Bearer tokens. */
export const v3: Version = { name: 'v3', bases: ['/v3'], changes: [bearerOnly, previewOnly] };
