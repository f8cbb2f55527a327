import { ERROR_CODES, type ErrorCode } from '../core/error-codes';
import { errorResponse, headerRef, responseRef } from './names';
import { OAUTH_CODES, PROBLEM_CODES, problemOf } from './schemas';
import type { HeaderObject, Ref, ResponseObject } from './types';

/**
 * Which operations a code can answer, by where it is thrown:
 * - `every`: the policies every request meets before authentication (transport, host, internal);
 * - `secured`: authentication and the rate limit, on operations that need a credential;
 * - `read`: the resource routes (access to the family, unknown id or page, upstream failures);
 * - `retired`: added by the version change that retires a version;
 * - `token`: the token endpoint's own errors.
 * A code this table does not place is thrown by a policy, so it can answer anywhere: new codes
 * in the code table appear in the descriptions without an edit here. `svc/methodNotAllowed`
 * answers no described operation, only the methods a path does not serve: each path item's
 * description names it (`describeMethods`).
 */
export type Where = 'every' | 'secured' | 'read' | 'retired' | 'token';

export function where(code: ErrorCode): Where | undefined {
  if (code.startsWith('oauth/')) return 'token';
  if (code.startsWith('upstream/') || code === 'auth/forbidden' || code === 'svc/notFound') return 'read';
  if (code.startsWith('auth/') || code === 'svc/rateLimited' || code === 'svc/tooManyRequests') return 'secured';
  if (code === 'svc/methodNotAllowed') return undefined;
  if (code === 'svc/gone') return 'retired';
  return 'every';
}

/** The statuses problem codes answer from the given places, ascending. */
export function problemStatuses(places: readonly Where[]): number[] {
  return statusesOf(
    PROBLEM_CODES.filter((code) => {
      const place = where(code);
      return place !== undefined && places.includes(place);
    }),
  );
}

export const OAUTH_STATUSES = statusesOf(OAUTH_CODES);

function statusesOf(codes: readonly ErrorCode[]): number[] {
  return [...new Set(codes.map((code) => ERROR_CODES[code].status as number))].sort((a, b) => a - b);
}

/** Headers an error of a status always carries, beyond those of every response. */
const STATUS_HEADERS: Record<number, Record<string, string>> = {
  401: { 'WWW-Authenticate': 'WwwAuthenticate' },
  426: { Upgrade: 'Upgrade' },
  429: { 'Retry-After': 'RetryAfter' },
};

/** Headers every response carries (`Svc-Request-Id`) or may carry. */
export const COMMON_HEADERS = { 'Svc-Request-Id': headerRef('RequestId'), 'Strict-Transport-Security': headerRef('StrictTransportSecurity') };
/** The counts of an authenticated caller: present once the caller is known. */
export const RATE_LIMIT_HEADERS = { RateLimit: headerRef('RateLimit'), 'RateLimit-Policy': headerRef('RateLimitPolicy') };
/** On errors the caller may not be known yet (a 401, a 426), so the counts may be absent. */
const OPTIONAL_RATE_LIMIT_HEADERS = { RateLimit: headerRef('OptionalRateLimit'), 'RateLimit-Policy': headerRef('OptionalRateLimitPolicy') };

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request: a parameter or the Host is not valid',
  401: 'No credential, or one that is not valid or not accepted here',
  403: 'The credential does not reach this resource',
  404: 'No such record, page or path',
  408: 'The request did not arrive in time (Node)',
  410: 'This version is retired',
  417: 'An Expect header other than 100-continue (Node)',
  421: 'This host is not served here',
  426: 'Plain HTTP is refused: use https',
  429: 'Too many requests',
  431: 'The request headers are too large (Node)',
  500: 'Unexpected error; quote the request id to support',
  501: 'A method the server does not know (Node)',
  502: 'The upstream backend failed',
  503: 'The upstream backend asks to back off',
  504: 'The upstream backend timed out',
};

export const statusText = (status: number) => STATUS_TEXT[status] ?? `Error ${status}`;

function errorHeaders(status: number, requiredExtras: boolean): Record<string, HeaderObject | Ref> {
  const extras = Object.fromEntries(
    Object.entries(STATUS_HEADERS[status] ?? {}).map(([name, component]) => [name, requiredExtras ? headerRef(component) : headerRef(`Optional${component}`)]),
  );
  return { ...COMMON_HEADERS, ...OPTIONAL_RATE_LIMIT_HEADERS, ...extras };
}

/** The shared error response of a status, as a version renders it (v2: problem+json). */
export function versionError(status: number): ResponseObject {
  return {
    description: statusText(status),
    headers: errorHeaders(status, true),
    content: { 'application/problem+json': { schema: problemOf(status) } },
  };
}

/** Every status of the code table as a shared error response, `Error<status>`. */
export function errorComponents(): Record<string, ResponseObject> {
  const all = problemStatuses(['every', 'secured', 'read', 'retired']);
  return Object.fromEntries(all.map((status) => [errorResponse(status), versionError(status)]));
}

/** References to the shared error responses for the given places. */
export function errorRefs(places: readonly Where[]): Record<string, Ref> {
  return Object.fromEntries(problemStatuses(places).map((status) => [String(status), responseRef(errorResponse(status))]));
}

/**
 * The token endpoint's errors, outside any version: its own codes in the RFC 6749 shape, the
 * policies' in problem+json (inline, so no version's error shape reaches them).
 */
export function tokenErrors(places: readonly Where[]): Record<string, ResponseObject> {
  const statuses = [...new Set([...problemStatuses(places), ...(places.includes('token') ? OAUTH_STATUSES : [])])].sort((a, b) => a - b);
  return Object.fromEntries(
    statuses.map((status) => {
      const content: ResponseObject['content'] = {};
      if (places.includes('token') && OAUTH_STATUSES.includes(status)) content['application/json'] = { schema: { $ref: '#/components/schemas/OAuthError' } };
      if (problemStatuses(places).includes(status)) content['application/problem+json'] = { schema: problemOf(status) };
      // A failed client authentication names the Basic scheme only when the client used it.
      return [String(status), { description: statusText(status), headers: errorHeaders(status, !(status === 401 && places.includes('token'))), content }];
    }),
  );
}
