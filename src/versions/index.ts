import type { Config } from '../config';
import { v3 } from './v3';
import type { Version } from './version';

/** v2: the canonical core, served as it is. */
export const v2: Version = { name: 'v2', bases: ['/v2'], changes: [] };

/** Every served version, built from the configuration (dates of deprecation and retirement). */
export function buildVersions(_config: Config): Version[] {
  return [v2, v3];
}
