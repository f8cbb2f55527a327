import type { ApiError } from '../core/api-error';
import { intervalAt, type Interval } from '../core/intervals';
import type { OpenApiDocument } from '../openapi/types';
import type { ListQuery, ResourceName } from '../services/record-source';
import type { CredentialRules, HeaderSink, JsonObject, PageResult, RenderedError, Version, VersionChange } from './version';

/** The canonical (v2) credential rules: the `Authorization` header, ApiKey or Bearer. */
export const CORE_CREDENTIALS: CredentialRules = { places: ['authorization'], schemes: ['apikey', 'bearer'] };

const chains = new WeakMap<Version, readonly VersionChange[]>();
const credentialRules = new WeakMap<Version, CredentialRules>();
const facts = new WeakMap<Version, VersionFacts>();

/** What every request asks of a version's chain, worked out once per version. */
interface VersionFacts {
  outermostFirst: readonly VersionChange[];
  errorChange: VersionChange | undefined;
  headerChanges: readonly VersionChange[];
  rewritesRecords: boolean;
  rewritesDetails: boolean;
  hasEnumerations: boolean;
  hasMigrationPlan: boolean;
  previewOnly: boolean;
  answersCors: boolean;
  retiredAt: number | undefined;
  hasBrownouts: boolean;
}

function factsOf(version: Version): VersionFacts {
  let known = facts.get(version);
  if (!known) {
    const changes = chain(version);
    const outermostFirst = [...changes].reverse();
    const instants = changes.flatMap((ch) => (ch.retiredAt === undefined ? [] : [ch.retiredAt]));
    known = {
      outermostFirst,
      errorChange: outermostFirst.find((ch) => ch.error),
      headerChanges: changes.filter((ch) => ch.headers),
      rewritesRecords: changes.some((ch) => ch.record),
      rewritesDetails: changes.some((ch) => ch.record || ch.detail),
      hasEnumerations: !changes.some((ch) => ch.withoutEnumerations),
      hasMigrationPlan: !changes.some((ch) => ch.withoutMigrationPlan),
      previewOnly: changes.some((ch) => ch.previewOnly),
      answersCors: !changes.some((ch) => ch.withoutCors),
      retiredAt: instants.length > 0 ? Math.min(...instants) : undefined,
      hasBrownouts: changes.some((ch) => ch.brownouts !== undefined && ch.brownouts.length > 0),
    };
    facts.set(version, known);
  }
  return known;
}

/**
 * A version's changes ordered from the core outward (a version's parent's changes come first),
 * resolved once per version: versions are built once per app and never change.
 */
export function chain(version: Version | undefined): readonly VersionChange[] {
  if (!version) return [];
  let changes = chains.get(version);
  if (!changes) chains.set(version, (changes = [...chain(version.parent), ...version.changes]));
  return changes;
}

/** Applies each version change's hooks; the only place that walks the version chain. */
export const walk = {
  credentials(version: Version): CredentialRules {
    let rules = credentialRules.get(version);
    if (!rules) credentialRules.set(version, (rules = chain(version).reduce((r, ch) => ch.credentials?.(r) ?? r, CORE_CREDENTIALS)));
    return rules;
  },
  /** A list query in the caller's version, migrated to the core (outermost change first). */
  listQuery(version: Version, query: ListQuery): ListQuery {
    return factsOf(version).outermostFirst.reduce((q, ch) => ch.listQuery?.(q) ?? q, query);
  },
  page(version: Version, page: PageResult, requested: ListQuery): PageResult {
    return chain(version).reduce((p, ch) => ch.page?.(p, requested) ?? p, page);
  },
  record(version: Version, record: JsonObject, resource: ResourceName): JsonObject {
    return chain(version).reduce((r, ch) => ch.record?.(r, resource) ?? r, record);
  },
  collection(version: Version, body: JsonObject): JsonObject {
    return chain(version).reduce((b, ch) => ch.collection?.(b) ?? b, body);
  },
  detail(version: Version, body: JsonObject): JsonObject {
    return chain(version).reduce((b, ch) => ch.detail?.(b) ?? b, body);
  },
  /** The error shape of the outermost change that defines one, if any. */
  error(version: Version | undefined, error: ApiError): RenderedError | undefined {
    return version && factsOf(version).errorChange?.error?.(error);
  },
  headers(version: Version | undefined, headers: HeaderSink): void {
    if (version) for (const ch of factsOf(version).headerChanges) ch.headers!(headers);
  },
  /** Whether any change sets response headers. */
  hasHeaders(version: Version | undefined): boolean {
    return version !== undefined && factsOf(version).headerChanges.length > 0;
  },
  /** Whether any change rewrites records (then the core must parse the records it serves). */
  rewritesRecords(version: Version): boolean {
    return factsOf(version).rewritesRecords;
  },
  /** Whether a detail body differs from the core's (a record or detail change applies). */
  rewritesDetails(version: Version): boolean {
    return factsOf(version).rewritesDetails;
  },
  /** The core's description, edited in place by each change from the core outward. */
  describe(version: Version, doc: OpenApiDocument): OpenApiDocument {
    for (const ch of chain(version)) ch.describe?.(doc);
    return doc;
  },
  hasEnumerations(version: Version): boolean {
    return factsOf(version).hasEnumerations;
  },
  hasMigrationPlan(version: Version): boolean {
    return factsOf(version).hasMigrationPlan;
  },
  previewOnly(version: Version): boolean {
    return factsOf(version).previewOnly;
  },
  answersCors(version: Version | undefined): boolean {
    return version !== undefined && factsOf(version).answersCors;
  },
  retiredAt(version: Version | undefined): number | undefined {
    return version && factsOf(version).retiredAt;
  },
  /** Whether any change announces brownouts (then every request asks `brownoutAt`). */
  hasBrownouts(version: Version | undefined): boolean {
    return version !== undefined && factsOf(version).hasBrownouts;
  },
  /** The brownout interval `now` falls in, if the version has one. */
  brownoutAt(version: Version | undefined, now: number): Interval | undefined {
    for (const ch of chain(version)) {
      const found = ch.brownouts && intervalAt(ch.brownouts, now);
      if (found) return found;
    }
    return undefined;
  },
};

/** The version a path belongs to and the base the caller used (`/api/v1` stays `/api/v1`). */
export type ResolvedVersion = Readonly<{ version: Version; base: string }>;

/**
 * Resolves paths against `versions`. The bases and the prefixes of the paths under them are listed
 * once, here, and a path's answer is that list's entry: every request asks, so resolving builds no
 * string and no object.
 */
export function versionResolver(versions: readonly Version[]): (path: string) => ResolvedVersion | undefined {
  const bases = versions.flatMap((version) => version.bases.map((base) => ({ version, base, under: `${base}/` })));
  return (path) => bases.find((entry) => path === entry.base || path.startsWith(entry.under));
}
