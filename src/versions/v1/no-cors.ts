import type { VersionChange } from '../version';

/** Browser access (member tokens from any origin, CONTRACT section 14) came with v2; v1 never had it. */
export const noCors: VersionChange = {
  name: 'no-cors',
  description: 'Browsers get no CORS answers: preflights and responses carry no `Access-Control-*` headers.',
  withoutCors: true,
};
