import type { Config, MigrationConfig } from '../../config';
import { versionOperations, versionResponses } from '../../openapi/edit';
import { errorResponse, headerRef, responseRef } from '../../openapi/names';
import { MIGRATION_PLAN_PATH } from '../../core/route-template';
import type { VersionChange } from '../version';

export type DeprecationDates = Pick<Config, 'v1DeprecatedAt' | 'v1Sunset' | 'docsUrl'> & { migration?: Pick<MigrationConfig, 'brownouts'> };

/** The migration guide's address, the target of the `rel="deprecation"` link. */
export const migrationGuideUrl = (docsUrl: string) => `${docsUrl}/migrating-to-v2`;

/** The relation type (RFC 8288 3.3, an extension type is a URI) of the link to the caller's own migration plan. */
export const migrationPlanRel = (docsUrl: string) => `${docsUrl}/rels/migration-plan`;

/**
 * Every v1 response, errors and 304s included, says when v1 was deprecated (RFC 9745), when it
 * stops (RFC 8594) and where the migration guide is; from the sunset on, v1 answers 410.
 */
export function deprecation({ v1DeprecatedAt, v1Sunset, docsUrl, migration }: DeprecationDates): VersionChange {
  const deprecationValue = `@${Math.floor(v1DeprecatedAt / 1000)}`;
  const sunsetValue = new Date(v1Sunset).toUTCString();
  // The guide, and the caller's own plan (read with the same key, sent as `Authorization`).
  const link = `<${migrationGuideUrl(docsUrl)}>; rel="deprecation", </v2${MIGRATION_PLAN_PATH}>; rel="${migrationPlanRel(docsUrl)}"`;
  return {
    name: 'deprecation',
    description:
      "Every response carries `Deprecation`, `Sunset` and a `Link` to the migration guide and to the caller's own migration plan; from `V1_SUNSET` on, every request answers 410.",
    retiredAt: v1Sunset,
    // V1_BROWNOUTS (docs/reference/migration.md): rehearsals of the sunset, so callers notice in time.
    brownouts: migration?.brownouts ?? [],
    headers(headers) {
      headers.set('deprecation', deprecationValue);
      headers.set('sunset', sunsetValue);
      // Appended: a response may already link elsewhere, and both links must survive.
      headers.append('link', link);
    },
    describe(doc) {
      const sunsetDay = new Date(v1Sunset).toISOString().slice(0, 10);
      doc.info.description = `**Deprecated** since ${new Date(v1DeprecatedAt).toISOString().slice(0, 10)}; retired on ${sunsetDay}, when every request answers 410. Move to v2: ${migrationGuideUrl(docsUrl)}\n\n${doc.info.description}`;
      Object.assign(doc.components.headers, {
        Deprecation: {
          description: `When this version was deprecated (RFC 9745): \`${deprecationValue}\`.`,
          required: true,
          schema: { type: 'string', pattern: '^@\\d+$' },
        },
        Sunset: { description: `When this version stops (RFC 8594): \`${sunsetValue}\`.`, required: true, schema: { type: 'string' } },
        Link: {
          description: `The migration guide (\`rel="deprecation"\`) and the caller's own migration plan (\`rel="${migrationPlanRel(docsUrl)}"\`, read from v2 with \`Authorization\`): \`${link}\`.`,
          required: true,
          schema: { type: 'string', pattern: 'rel="deprecation"' },
        },
      });
      for (const response of versionResponses(doc)) {
        response.headers = { ...response.headers, Deprecation: headerRef('Deprecation'), Sunset: headerRef('Sunset'), Link: headerRef('Link') };
      }
      for (const { operation } of versionOperations(doc)) {
        operation.deprecated = true;
        operation.responses['410'] = responseRef(errorResponse(410));
      }
    },
  };
}
