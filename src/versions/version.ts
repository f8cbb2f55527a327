import type { ApiError } from '../core/api-error';
import type { Interval } from '../core/intervals';
import type { OpenApiDocument } from '../openapi/types';
import type { ListQuery, ResourceName } from '../services/record-source';

import type { JsonObject, PageResult } from '../core/query';

export type { JsonObject, PageResult } from '../core/query';

/** Where a credential can arrive. Only the `Authorization` header is canonical (v2). */
export type CredentialPlace = 'authorization' | 'x-api-key' | 'x-key' | 'query:key' | 'query:token';
export type Scheme = 'apikey' | 'bearer';

export interface CredentialRules {
  /** Accepted places, in precedence order: the first one present wins. */
  places: readonly CredentialPlace[];
  /** Accepted `Authorization` schemes. */
  schemes: readonly Scheme[];
}

/** Where a change writes response headers: a `Headers`, or the policies' gathered headers (src/policies/response-headers.ts). */
export type HeaderSink = Pick<Headers, 'set' | 'append'>;

export interface RenderedError {
  contentType: string;
  body: unknown;
}

/**
 * One named difference between a version and the one it derives from (Cadwyn's "version change").
 * Every hook is optional; the walker applies request hooks toward the core and response hooks away
 * from it, so handlers and the core never ask which version they serve.
 */
export interface VersionChange {
  name: string;
  /** One sentence: what this change does. */
  description: string;

  // Request side, applied from the caller's version toward the core.
  credentials?(rules: CredentialRules): CredentialRules;
  listQuery?(query: ListQuery): ListQuery;
  /** Enumeration routes (`/genus/{id}/species`, ...) do not exist in this version. */
  withoutEnumerations?: true;
  /** `/migration-plan` does not exist in this version. */
  withoutMigrationPlan?: true;
  /** Only credentials in the closed preview may call. */
  previewOnly?: true;
  /** Browsers get no CORS answers from this version (it predates browser access). */
  withoutCors?: true;
  /** From this instant the version answers 410 to everything. */
  retiredAt?: number;
  /** Announced intervals before retirement during which the version answers as if retired. */
  brownouts?: readonly Interval[];

  // Response side, applied from the core toward the caller's version.
  page?(page: PageResult, requested: ListQuery): PageResult;
  record?(record: JsonObject, resource: ResourceName): JsonObject;
  collection?(body: JsonObject): JsonObject;
  detail?(body: JsonObject): JsonObject;
  error?(error: ApiError): RenderedError;
  headers?(headers: HeaderSink): void;

  /**
   * The same difference in the version's OpenAPI description: edits the document the walker
   * hands it (a copy of the parent version's), so what is described changes with what is served.
   */
  describe?(doc: OpenApiDocument): void;
}

export interface Version {
  name: string;
  /** Path prefixes the version is served at; links keep the one the caller used. */
  bases: readonly string[];
  /** The version these changes are relative to; none means the canonical core (v2). */
  parent?: Version;
  changes: readonly VersionChange[];
}
