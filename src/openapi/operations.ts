import { RESOURCES, type Enumeration } from '../core/resources';
import type { ResourceName } from '../services/record-source';
import { COMMON_HEADERS, errorRefs, RATE_LIMIT_HEADERS, tokenErrors } from './errors';
import { headerRef, parameterRef, responseRef, schemaRef } from './names';
import type { Method, Operation, ParameterObject, PathItem, Ref, ResponseObject } from './types';

export const CORS_TAG = 'CORS';

/** 301 for GET and HEAD, 308 for other methods: plain HTTP before the HTTPS cut-off. */
export function redirect(status: 301 | 308): ResponseObject {
  return {
    description: `Plain HTTP before the HTTPS cut-off: the same URL with https${status === 308 ? ', method and body kept' : ''}`,
    headers: { ...COMMON_HEADERS, Location: headerRef('Location') },
  };
}

const redirectRef = (method: Method) => ({
  [method === 'get' || method === 'head' ? '301' : '308']: responseRef(method === 'get' || method === 'head' ? 'Redirect301' : 'Redirect308'),
});

const sorted = (responses: Record<string, ResponseObject | Ref>) => Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));

/** HEAD answers the headers GET would, without the body. */
const withoutBody = ({ content: _, ...response }: ResponseObject): ResponseObject => response;

const json = (schema: string) => ({ 'application/json': { schema: schemaRef(schema) } });

interface ReadSpec {
  operationId: string;
  summary: string;
  description: string;
  tag: string;
  parameters: Array<ParameterObject | Ref>;
  schema: string;
  /** Details carry validators and answer 304 to `If-None-Match`. */
  conditional: boolean;
}

/** GET and HEAD of a resource path: the body (GET only), the statuses, the headers. */
export function read(spec: ReadSpec): PathItem {
  const validators: Record<string, Ref> = spec.conditional ? { ETag: headerRef('ETag'), 'Last-Modified': headerRef('LastModified') } : {};
  const ok: ResponseObject = { description: 'OK', headers: { ...COMMON_HEADERS, ...RATE_LIMIT_HEADERS, ...validators }, content: json(spec.schema) };
  const notModified: ResponseObject = {
    description: 'Not modified: `If-None-Match` matched the ETag',
    headers: { ...COMMON_HEADERS, ...RATE_LIMIT_HEADERS, ETag: headerRef('ETag') },
  };
  const responses = (method: Method) =>
    sorted({
      200: method === 'head' ? withoutBody(ok) : ok,
      ...(spec.conditional ? { 304: notModified } : {}),
      ...redirectRef(method),
      ...errorRefs(['every', 'secured', 'read']),
    });
  const base = {
    summary: spec.summary,
    description: spec.description,
    tags: [spec.tag],
    ...(spec.parameters.length > 0 ? { parameters: spec.parameters } : {}),
  };
  return {
    get: { operationId: spec.operationId, ...base, responses: responses('get') },
    head: { operationId: `${spec.operationId}Head`, ...base, summary: `${spec.summary} (headers only)`, responses: responses('head') },
  };
}

/** The CORS preflight: answered before authentication, from any origin (docs/reference/requests.md). */
export function preflight(path: string, operationId: string): Operation {
  return {
    operationId: `${operationId}Preflight`,
    summary: `CORS preflight for ${path}`,
    description: 'Browsers ask before sending `Authorization`; any origin may, and no cookies are used.',
    tags: [CORS_TAG],
    security: [],
    responses: sorted({
      204: {
        description: 'The methods and headers a browser may use',
        headers: {
          ...COMMON_HEADERS,
          'Access-Control-Allow-Origin': headerRef('AccessControlAllowOrigin'),
          'Access-Control-Allow-Methods': headerRef('AccessControlAllowMethods'),
          'Access-Control-Allow-Headers': headerRef('AccessControlAllowHeaders'),
          'Access-Control-Max-Age': headerRef('AccessControlMaxAge'),
        },
      },
      ...redirectRef('options'),
      ...errorRefs(['every']),
    }),
  };
}

/** `page`, `q` and one `order[<field>]` per sortable field of the resource (docs/reference/interface.md). */
function listParameters(resource: ResourceName): Array<ParameterObject | Ref> {
  const order: ParameterObject[] = RESOURCES[resource].sortable.map((field) => ({
    name: `order[${field}]`,
    in: 'query',
    description: `Sort by \`${field}\`. Several \`order[...]\` sort in the order given; text ignores case and accents, nulls last, ties by \`id\`.`,
    schema: { type: 'string', enum: ['asc', 'desc'] },
  }));
  return [parameterRef('page'), parameterRef('q'), ...order];
}

const title = (name: string) => name[0]!.toUpperCase() + name.slice(1);

/** A resource family's collection and detail paths. */
export function resourcePaths(resource: ResourceName, recordName: string, collection: string, detail: string): Record<string, PathItem> {
  const listId = `list${title(resource)}`;
  const getId = `get${recordName}`;
  return {
    [`/${resource}`]: {
      ...read({
        operationId: listId,
        summary: `List ${resource}`,
        description: `Pages of ${resource} records, searchable with \`q\` and sortable with \`order[...]\`. A page past the last is 404, except page 1 of nothing.`,
        tag: resource,
        parameters: listParameters(resource),
        schema: collection,
        conditional: false,
      }),
      options: preflight(`/${resource}`, listId),
    },
    [`/${resource}/{id}`]: {
      parameters: [parameterRef('id')],
      ...read({
        operationId: getId,
        summary: `Get one ${recordName.toLowerCase()} record`,
        description: 'One record with `meta.last_modified`, a strong `ETag` and `Last-Modified`; 304 when `If-None-Match` matches.',
        tag: resource,
        parameters: [],
        schema: detail,
        conditional: true,
      }),
      options: preflight(`/${resource}/{id}`, getId),
    },
  };
}

/** An enumeration route: the children of one parent record, e.g. the species of a genus. */
export function enumerationPath({ parent, child }: Enumeration, parentRecord: string, collection: string): PathItem {
  const id = `list${title(parent)}${title(child)}`;
  const path = `/${parent}/{id}/${child}`;
  return {
    parameters: [parameterRef('id')],
    ...read({
      operationId: id,
      summary: `List the ${child} of one ${parentRecord.toLowerCase()} record`,
      description: `Pages of the ${child} records under a ${parentRecord.toLowerCase()} record; 404 when that record does not exist.`,
      tag: child,
      parameters: listParameters(child),
      schema: collection,
      conditional: false,
    }),
    options: preflight(path, id),
  };
}

/** The version's own description: no credential, cacheable, answered to browsers. */
export function descriptionPath(path: string): PathItem {
  const ok: ResponseObject = {
    description: 'This document',
    headers: { ...COMMON_HEADERS, ETag: headerRef('ETag'), 'Cache-Control': headerRef('PublicCacheControl') },
    content: json('Description'),
  };
  const notModified: ResponseObject = {
    description: 'Not modified',
    headers: { ...COMMON_HEADERS, ETag: headerRef('ETag'), 'Cache-Control': headerRef('PublicCacheControl') },
  };
  const responses = (method: Method) =>
    sorted({ 200: method === 'head' ? withoutBody(ok) : ok, 304: notModified, ...redirectRef(method), ...errorRefs(['every']) });
  const base = { summary: "This version's OpenAPI description", tags: ['Descriptions'], security: [] };
  return {
    get: { operationId: 'getDescription', ...base, responses: responses('get') },
    head: { operationId: 'getDescriptionHead', ...base, responses: responses('head') },
    options: preflight(path, 'getDescription'),
  };
}

/** `POST /oauth/token`, at the root (the path item's own server): the client credentials grant. */
export function tokenPath(): PathItem {
  const ok: ResponseObject = {
    description: 'A Bearer token; cache it until it nears expiry',
    headers: { ...COMMON_HEADERS, 'Cache-Control': headerRef('NoStore'), ...RATE_LIMIT_HEADERS },
    content: json('AccessToken'),
  };
  return {
    servers: [{ url: '/oauth', description: 'The root of the gateway: the token endpoint has no version' }],
    post: {
      operationId: 'requestToken',
      summary: 'Exchange client credentials for an access token',
      description:
        'OAuth 2.0 client credentials grant (RFC 6749 4.4). The client authenticates with HTTP Basic or with `client_id` and `client_secret` in the form, never both. Tokens expire after 900 s; there is no refresh token.',
      tags: ['OAuth'],
      security: [{ ClientBasic: [] }, {}],
      requestBody: { required: true, content: { 'application/x-www-form-urlencoded': { schema: schemaRef('TokenRequest') } } },
      responses: sorted({ 200: ok, 308: redirect(308), ...tokenErrors(['every', 'token']) }),
    },
  };
}
