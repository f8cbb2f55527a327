import type { Config } from '../config';
import { ENUMERATIONS, RESOURCE_NAMES } from '../core/resources';
import { MAX_QUERY_LENGTH } from '../core/list-query';
import type { Version } from '../versions/version';
import { walk } from '../versions/walker';
import { describeMethods } from './allow';
import { errorComponents } from './errors';
import { migrationPlanPath, migrationPlanSchemas } from './plan-schemas';
import { collectionSchema, DESCRIPTION_PATH, MIGRATION_PLAN_PATH, detailSchema, enumerationPath as enumerationKey, recordSchema } from './names';
import { CORS_TAG, descriptionPath, enumerationPath, redirect, resourcePaths, tokenPath } from './operations';
import { prune } from './prune';
import { coreSchemas } from './schemas';
import type { HeaderObject, OpenApiDocument } from './types';

const header = (description: string, schema: HeaderObject['schema'], required = true): HeaderObject => ({ description, required, schema });

function headers(): Record<string, HeaderObject> {
  const rateLimit = header('Requests left in this window and seconds until it resets (IETF ratelimit-headers draft).', {
    type: 'string',
    pattern: '^"[a-z]+";r=\\d+;t=\\d+$',
  });
  const rateLimitPolicy = header('The limit and its window in seconds.', { type: 'string', pattern: '^"[a-z]+";q=\\d+;w=\\d+$' });
  const challenge = header('The schemes accepted here (`ApiKey`, `Bearer`); `error="invalid_token"` for a bad or expired Bearer token.', { type: 'string' });
  return {
    RequestId: header("A fresh id of this request; quote it to support. It is the last part of a problem's `instance`.", { type: 'string', format: 'uuid' }),
    StrictTransportSecurity: header('On https responses.', { type: 'string' }, false),
    RateLimit: rateLimit,
    RateLimitPolicy: rateLimitPolicy,
    OptionalRateLimit: { ...rateLimit, required: false },
    OptionalRateLimitPolicy: { ...rateLimitPolicy, required: false },
    WwwAuthenticate: challenge,
    OptionalWwwAuthenticate: { ...challenge, description: '`Basic` when the client authenticated with HTTP Basic.', required: false },
    Upgrade: header('`TLS/1.2, HTTP/1.1`.', { type: 'string' }),
    RetryAfter: header('Seconds to wait before retrying.', { type: 'string', pattern: '^\\d+$' }),
    ETag: header('A strong validator; send it back in `If-None-Match`.', { type: 'string', pattern: '^"[^"]*"$' }),
    LastModified: header('When the record last changed (HTTP-date).', { type: 'string' }),
    Location: header('The same URL with https.', { type: 'string', format: 'uri' }),
    PublicCacheControl: header('`public, max-age=300`.', { type: 'string', const: 'public, max-age=300' }),
    NoStore: header('`no-store`: a token is never cached by intermediaries.', { type: 'string', const: 'no-store' }),
    AccessControlAllowOrigin: header('`*`: any origin.', { type: 'string' }),
    AccessControlAllowMethods: header('The methods a browser may use.', { type: 'string' }),
    AccessControlAllowHeaders: header('The request headers a browser may send.', { type: 'string' }, false),
    AccessControlMaxAge: header('Seconds a browser may keep this answer.', { type: 'string' }, false),
  };
}

/**
 * The canonical (v2) description, from the core's own definitions: the resources and their
 * sortable fields, the record interfaces, the code table and the policies' headers. Every other
 * version's description is this one walked through that version's changes.
 */
export function coreDocument(config: Pick<Config, 'docsUrl'>): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const resource of RESOURCE_NAMES)
    Object.assign(paths, resourcePaths(resource, recordSchema(resource), collectionSchema(resource), detailSchema(resource)));
  for (const enumeration of ENUMERATIONS)
    paths[enumerationKey(enumeration)] = enumerationPath(enumeration, recordSchema(enumeration.parent), collectionSchema(enumeration.child));
  paths[DESCRIPTION_PATH] = descriptionPath(DESCRIPTION_PATH);
  paths[MIGRATION_PLAN_PATH] = migrationPlanPath();
  paths['/token'] = tokenPath();
  return {
    openapi: '3.1.1',
    info: {
      title: 'Botanical reference API',
      version: 'v2',
      summary: 'Plant taxonomy records (species, genus, families, plants) as JSON.',
      description: [
        'Species, genus, families and plants from the USDA PLANTS database. Every response uses one envelope: `data`, `links`, `meta`.',
        'Collections come in pages: follow `links.next` until it is absent. Each operation lists every status it can answer, with its body and headers; each path says which methods it serves, and any other is answered 405 with `Allow`.',
        `Problem types and guides: ${config.docsUrl}.`,
      ].join('\n\n'),
    },
    servers: [{ url: '/v2' }],
    tags: [
      ...RESOURCE_NAMES.map((name) => ({ name, description: `${name[0]!.toUpperCase()}${name.slice(1)} records.` })),
      { name: 'OAuth', description: 'Access tokens for the OAuth 2.0 client credentials grant.' },
      { name: 'Migration', description: "The caller's own plan for moving from v1." },
      { name: 'Descriptions', description: "This API's own descriptions." },
      { name: CORS_TAG, description: 'Preflights: browsers ask, without a credential, before sending `Authorization`.' },
    ],
    paths,
    components: {
      schemas: { ...coreSchemas(), ...migrationPlanSchemas() },
      responses: { ...errorComponents(), Redirect301: redirect(301), Redirect308: redirect(308) },
      parameters: {
        page: {
          name: 'page',
          in: 'query',
          description: '1-based page number; absent means 1. Pages hold 20 records.',
          schema: { type: 'integer', minimum: 1 },
        },
        q: {
          name: 'q',
          in: 'query',
          description: 'Search text: a case- and accent-insensitive substring of the scientific name, common name, common names or synonyms.',
          schema: { type: 'string', maxLength: MAX_QUERY_LENGTH },
        },
        id: { name: 'id', in: 'path', required: true, description: 'The record identifier.', schema: { type: 'string' } },
      },
      headers: headers(),
      securitySchemes: {
        ApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'A project API key, sent as `Authorization: ApiKey <key>`. Keep it server-side.',
        },
        Bearer: { type: 'http', scheme: 'bearer', description: 'A personal access token or an OAuth access token: `Authorization: Bearer <token>`.' },
        OAuth2: {
          type: 'oauth2',
          description: 'OAuth 2.0 client credentials; the token is then sent as `Authorization: Bearer <token>`.',
          flows: { clientCredentials: { tokenUrl: '/oauth/token', scopes: {} } },
        },
        ClientBasic: { type: 'http', scheme: 'basic', description: 'The OAuth client id and secret (RFC 6749 2.3.1).' },
      },
    },
    security: [{ ApiKey: [] }, { Bearer: [] }, { OAuth2: [] }],
  };
}

/**
 * The description of one version at one of its bases: the core document walked through the
 * version's changes, the same changes that transform its traffic; then each path says which
 * methods it serves.
 */
export function describeVersion(core: OpenApiDocument, version: Version, base: string): OpenApiDocument {
  const doc = walk.describe(version, structuredClone(core));
  doc.info.version = version.name;
  doc.servers = [{ url: base }];
  return prune(describeMethods(doc));
}

/** Every version's description by base (`/v2`, `/v1`, `/api/v1`, `/v3`), built once per app. */
export function describeVersions(config: Pick<Config, 'docsUrl'>, versions: readonly Version[]): Map<string, OpenApiDocument> {
  const core = coreDocument(config);
  const out = new Map<string, OpenApiDocument>();
  for (const version of versions) for (const base of version.bases) out.set(base, describeVersion(core, version, base));
  return out;
}
