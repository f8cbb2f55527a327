import type { ColorTrait, FamilyRecord, FoliageTrait, GenusRecord, PlantRecord, SpeciesRecord } from '../core/records';
import { RESOURCE_NAMES } from '../core/resources';
import { ERROR_CODES, isOAuthCode, oauthErrorName, type ErrorCode } from '../core/error-codes';
import { PAGE_SIZE, type DetailMeta, type ResourceName } from '../services/record-source';
import { collectionSchema, detailSchema, recordSchema, schemaRef } from './names';
import type { JsonSchema } from './types';

/**
 * The JSON Schemas of the canonical (v2) shapes. Each record schema is typed against the core's
 * record interface (`Fields<R>`): a field added to or removed from a record without its schema
 * does not compile, so the description cannot silently lose a field.
 */
type Fields<R> = { [K in keyof Required<R>]: JsonSchema };

/** `rank`, `status` and `duration` tokens are lowercase in the core (docs/reference/interface.md). */
export const LOWERCASE = '^[^A-Z]*$';
/** Trait tokens and `growth_rate` are UPPERCASE in every version. */
export const UPPERCASE = '^[^a-z]*$';

const text = (description: string): JsonSchema => ({ type: 'string', description });
const orNull = (description: string): JsonSchema => ({ type: ['string', 'null'], description });
const id = (description: string): JsonSchema => ({ type: 'string', minLength: 1, description });
const tokens = (pattern: string, description: string): JsonSchema => ({ type: ['array', 'null'], items: { type: 'string', pattern }, description });

function object<R>(description: string, properties: Fields<R>, optional: ReadonlyArray<keyof R> = []): JsonSchema {
  const required = Object.keys(properties).filter((k) => !optional.includes(k as keyof R));
  return { type: 'object', description, required, properties, additionalProperties: false };
}

const colorTrait = object<ColorTrait>('A trait block with colours.', {
  color: tokens(UPPERCASE, 'UPPERCASE colour tokens (`YELLOW`); null when unknown.'),
  conspicuous: { type: ['boolean', 'null'], description: 'Null when unknown.' },
});

const foliageTrait = object<FoliageTrait>('The foliage trait block.', {
  color: tokens(UPPERCASE, 'UPPERCASE colour tokens; null when unknown.'),
  texture: orNull('Null when unknown.'),
});

const species = object<SpeciesRecord>('A species (or infraspecific taxon) record.', {
  id: id('Identifier (the USDA PLANTS symbol).'),
  slug: text('URL-style name.'),
  scientific_name: text('Scientific name with its rank marker.'),
  common_name: orNull('English common name; null when there is none.'),
  rank: { type: 'string', pattern: LOWERCASE, description: 'Taxonomic rank (`species`, `var`, `subsp`, `f`).', examples: ['species'] },
  status: { type: 'string', pattern: LOWERCASE, description: 'Taxonomic status (`accepted`).', examples: ['accepted'] },
  duration: tokens(LOWERCASE, 'Life spans (`annual`, `biennial`, `perennial`); null when unknown.'),
  author: orNull('Author of the name.'),
  bibliography: orNull('Where the name was published.'),
  year: { type: ['integer', 'null'], description: 'Year the name was published; null when unknown.' },
  genus_id: id('Identifier of the genus record.'),
  genus: text('Genus name.'),
  family_id: id('Identifier of the family record.'),
  family: text('Family name.'),
  family_common_name: orNull('English name of the family.'),
  plant_id: { type: ['string', 'null'], description: 'The plant this species belongs to.' },
  common_names: {
    type: 'object',
    description: 'Common names by ISO 639 language code.',
    propertyNames: { pattern: '^[a-z]{2,3}$' },
    additionalProperties: { type: 'array', items: { type: 'string' } },
  },
  synonyms: { type: 'array', items: { type: 'string' }, description: 'Synonymous scientific names.' },
  flower: schemaRef('ColorTrait'),
  foliage: schemaRef('FoliageTrait'),
  fruit_or_seed: schemaRef('ColorTrait'),
  growth_rate: { type: ['string', 'null'], pattern: UPPERCASE, description: 'UPPERCASE token (`SLOW`, `MODERATE`, `RAPID`); null when unknown.' },
});

const family = object<FamilyRecord>('A family record.', {
  id: id('Identifier (the family name).'),
  slug: text('URL-style name.'),
  name: text('Family name.'),
  common_name: orNull('English name of the family.'),
});

const genus = object<GenusRecord>('A genus record.', {
  id: id('Identifier (the genus name).'),
  slug: text('URL-style name.'),
  name: text('Genus name.'),
  common_name: orNull('English name of the genus.'),
  family_id: id('Identifier of the family record.'),
  family: text('Family name.'),
});

const plant = object<PlantRecord>('A plant: an accepted taxon and its main species.', {
  id: id('Identifier.'),
  slug: text('URL-style name.'),
  scientific_name: text('Scientific name.'),
  common_name: orNull('English common name.'),
  genus_id: id('Identifier of the genus record.'),
  family_id: id('Identifier of the family record.'),
  main_species_id: id('Identifier of the main species record.'),
});

const RECORDS: Record<ResourceName, JsonSchema> = { species, genus, families: family, plants: plant };

const count = (description: string): JsonSchema => ({ type: 'integer', minimum: 0, description });
const detailMetaFields: Fields<DetailMeta> = {
  last_modified: { type: 'string', format: 'date-time', pattern: 'Z$', description: 'RFC 3339 UTC instant the record last changed.' },
  synonyms_count: count('Number of synonyms (species details always carry it).'),
  images_count: count('Number of images, when the record has image data.'),
  sources_count: count('Number of sources, when the record has source data.'),
};

const link = (description: string): JsonSchema => ({ type: 'string', pattern: '^/', description });

/** The collection envelope, the detail envelope and their parts, for every resource family. */
function envelopes(): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {
    Links: {
      type: 'object',
      description:
        'Relative links that keep every query parameter the caller sent, with only `page` changed. `first` and `last` are absent when nothing matches; `prev` on the first page and `next` on the last.',
      required: ['self'],
      properties: {
        self: link('This page.'),
        first: link('Page 1.'),
        prev: link('The page before.'),
        next: link('The page after; follow it until it is absent.'),
        last: link('The last page.'),
      },
      additionalProperties: false,
    },
    CollectionMeta: {
      type: 'object',
      required: ['total', 'per_page', 'current_page', 'last_page'],
      properties: {
        total: count('Matching records across all pages.'),
        per_page: { type: 'integer', const: PAGE_SIZE, description: 'Always 20.' },
        current_page: { type: 'integer', minimum: 1, description: '1-based.' },
        last_page: count('`ceil(total / per_page)`.'),
      },
      additionalProperties: false,
    },
    DetailMeta: object<DetailMeta>('Facts about a record.', detailMetaFields, ['synonyms_count', 'images_count', 'sources_count']),
    SpeciesDetailMeta: object<DetailMeta>('Facts about a species record.', detailMetaFields, ['images_count', 'sources_count']),
  };
  for (const resource of RESOURCE_NAMES) {
    out[collectionSchema(resource)] = {
      type: 'object',
      description: `A page of ${resource} records.`,
      required: ['data', 'links', 'meta'],
      properties: {
        data: { type: 'array', maxItems: PAGE_SIZE, items: schemaRef(recordSchema(resource)) },
        links: schemaRef('Links'),
        meta: schemaRef('CollectionMeta'),
      },
      additionalProperties: false,
    };
    out[detailSchema(resource)] = {
      type: 'object',
      description: `One ${resource} record and facts about it.`,
      required: ['data', 'meta'],
      properties: { data: schemaRef(recordSchema(resource)), meta: schemaRef(resource === 'species' ? 'SpeciesDetailMeta' : 'DetailMeta') },
      additionalProperties: false,
    };
  }
  return out;
}

const CODES = Object.keys(ERROR_CODES) as ErrorCode[];
/** The codes rendered as problem+json (all but the token endpoint's). */
export const PROBLEM_CODES = CODES.filter((code) => !isOAuthCode(code));
export const OAUTH_CODES = CODES.filter(isOAuthCode);

/** RFC 9457 problem details with the gateway's `code` (docs/reference/errors.md). */
const problem: JsonSchema = {
  type: 'object',
  description: 'RFC 9457 problem details. Branch on `code`, never on `title` or `detail`.',
  required: ['type', 'title', 'status', 'code', 'instance'],
  properties: {
    type: { type: 'string', format: 'uri', description: '`{DOCS_URL}/problems/<slug>`.' },
    title: text('Short summary of the problem kind.'),
    status: { type: 'integer', minimum: 400, maximum: 599 },
    code: { type: 'string', enum: PROBLEM_CODES, description: 'Stable machine-readable code, `<area>/<camelCaseName>`.' },
    detail: text('A sentence about this occurrence.'),
    instance: { type: 'string', pattern: '^urn:[A-Za-z0-9-]+:request:', description: '`urn:<service>:request:<Svc-Request-Id>`.' },
  },
  additionalProperties: false,
};

/** The token endpoint's schemas (RFC 6749 5.1 and 5.2). */
const oauth: Record<string, JsonSchema> = {
  AccessToken: {
    type: 'object',
    required: ['access_token', 'token_type', 'expires_in'],
    properties: {
      access_token: text('Send it as `Authorization: Bearer <access_token>`.'),
      token_type: { type: 'string', const: 'Bearer' },
      expires_in: { type: 'integer', minimum: 1, description: 'Seconds until it expires (900); cache it until then.' },
    },
    additionalProperties: false,
  },
  OAuthError: {
    type: 'object',
    required: ['error', 'error_description'],
    properties: { error: { type: 'string', enum: OAUTH_CODES.map(oauthErrorName) }, error_description: text('What was wrong.') },
    additionalProperties: false,
  },
  TokenRequest: {
    type: 'object',
    required: ['grant_type'],
    properties: {
      grant_type: { type: 'string', const: 'client_credentials' },
      client_id: text('The OAuth client, unless it authenticates with HTTP Basic.'),
      client_secret: text('Its secret, unless it authenticates with HTTP Basic.'),
    },
  },
};

/** Every component schema of the core document. */
export function coreSchemas(): Record<string, JsonSchema> {
  const records = Object.fromEntries(RESOURCE_NAMES.map((r) => [recordSchema(r), RECORDS[r]]));
  const description: JsonSchema = {
    type: 'object',
    description: 'An OpenAPI 3.1 document.',
    required: ['openapi'],
    properties: { openapi: { type: 'string', pattern: '^3\\.1\\.' } },
  };
  return { ...records, ColorTrait: colorTrait, FoliageTrait: foliageTrait, ...envelopes(), Problem: problem, ...oauth, Description: description };
}

/** A problem of one status: the codes of that status from the code table. */
export function problemOf(status: number): JsonSchema {
  const codes = PROBLEM_CODES.filter((code) => ERROR_CODES[code].status === status);
  return { allOf: [schemaRef('Problem'), { type: 'object', properties: { status: { const: status }, code: { enum: codes } } }] };
}
