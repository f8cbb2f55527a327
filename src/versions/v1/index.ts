import type { Config } from '../../config';
import type { Version } from '../version';
import { bareDetail } from './bare-detail';
import { deprecation } from './deprecation';
import { flowerOrSeed } from './flower-or-seed';
import { languageNames } from './language-names';
import { legacyCredentials } from './legacy-credentials';
import { legacyErrors } from './legacy-errors';
import { noCors } from './no-cors';
import { noEnumerations } from './no-enumerations';
import { noMigrationPlan } from './no-migration-plan';
import { pagesOfTen } from './pages-of-ten';
import { totalOnlyMeta } from './total-only-meta';
import { uppercaseEnums } from './uppercase-enums';

/**
 * v1, deprecated and frozen: the v2 core seen through one change per row of the spec's
 * "Differences from v1 to v2" table, in the table's order (the migration guide follows it), then
 * what docs/reference/migration.md and docs/reference/requests.md add: no CORS, and the deprecation headers and sunset.
 */
export function v1(config: Config): Version {
  return {
    name: 'v1',
    bases: ['/v1', '/api/v1'],
    changes: [
      legacyCredentials,
      bareDetail,
      flowerOrSeed,
      uppercaseEnums,
      languageNames,
      pagesOfTen,
      totalOnlyMeta,
      legacyErrors,
      noEnumerations,
      noMigrationPlan,
      noCors,
      deprecation(config),
    ],
  };
}
