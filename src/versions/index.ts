import type { Config } from '../config';
import { v3 } from './v3';
import type { Version } from './version';
import { v1 } from './v1';

/** v2: the canonical core, served as it is. */
export const v2: Version = { name: 'v2', bases: ['/v2'], changes: [] };

/** Every served version, built from the configuration (dates of deprecation and retirement). */
export function buildVersions(config: Config): Version[] {
  return [v2, v3, v1(config)];
}
