import type { Hono } from 'hono';
import type { Config } from '../config';
import type { AppEnv, Services } from '../env';
import type { Version } from '../versions/version';
import { facadeShadow } from './facade-shadow';
import { v1Migration } from './policy';

/** The version the migration controls steer: the one the `V1_*` settings are named after. */
const STEERED = 'v1';

/**
 * Mounts the migration controls (docs/reference/migration.md) on v1's bases: after the policies, before
 * the routes. Without a legacy backend there is nothing to switch or compare, and nothing is mounted.
 */
export function mountMigration(app: Hono<AppEnv>, core: Hono<AppEnv>, versions: readonly Version[], config: Config, services: Services): void {
  const version = versions.find((v) => v.name === STEERED);
  if (!version || !services.legacy) return;
  const { answer, comparePercent } = config.migration;
  if (answer === 'facade' && comparePercent === 0) return;
  const policy = v1Migration(config.migration, services, facadeShadow(core, version, config, services));
  for (const base of version.bases) app.use(`${base}/*`, policy);
}
