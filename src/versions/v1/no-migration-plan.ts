import { MIGRATION_PLAN_PATH } from '../../openapi/names';
import type { VersionChange } from '../version';

/** v1 predates the self-service plan: a client reads it from v2, with the v2 `Authorization` header. */
export const noMigrationPlan: VersionChange = {
  name: 'no-migration-plan',
  description: `\`${MIGRATION_PLAN_PATH}\` does not exist: a client reads its own migration plan at \`/v2${MIGRATION_PLAN_PATH}\`, with \`Authorization\`.`,
  withoutMigrationPlan: true,
  describe(doc) {
    delete doc.paths[MIGRATION_PLAN_PATH];
  },
};
