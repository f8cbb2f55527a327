/**
 * A credential as the caller presented it (docs/reference/access.md): which place it came in, the secret
 * it carries, its log label, and the challenge a refusal answers with. Nothing here looks a
 * secret up: src/policies/auth.ts does, with what this reads.
 */
import type { Context } from 'hono';
import type { ApiError } from '../core/api-error';
import type { ErrorCode } from '../core/error-codes';
import { plainQuery } from '../core/query-string';
import type { AppEnv } from '../env';
import type { RequestHeader } from '../services/request-header';
import type { CredentialPlace, CredentialRules, Scheme } from '../versions/version';

/** Every place a credential can arrive, whatever the version accepts. */
const ALL_PLACES: readonly CredentialPlace[] = ['authorization', 'x-api-key', 'x-key', 'query:key', 'query:token'];
const HEADER_PLACES = ALL_PLACES.filter((p) => !p.startsWith('query:'));

export interface Presented {
  place: CredentialPlace;
  value: string;
  /** False for a place the version refuses. */
  accepted: boolean;
}

/** A presented credential read: its secret, which stores may hold it, and its log label. */
export interface Secret {
  value: string;
  scheme: Scheme | undefined;
  kinds: Array<'apiKey' | 'personalToken'>;
  label: string;
}

/** A 401 with the version's challenge (`WWW-Authenticate`). */
export type Challenge = (code: ErrorCode, detail: string, bearerError?: boolean) => ApiError;

function presentedValue(c: Context<AppEnv>, place: CredentialPlace, header: RequestHeader): string | undefined {
  return place.startsWith('query:') ? c.req.query(place.slice('query:'.length)) : header(c, place);
}

/** Log label of a credential's kind and place: `apiKey`, `bearer`, `v1:x-api-key`, `v1:query`. */
export function label(place: CredentialPlace, scheme: Scheme | undefined, versionName: string): string {
  if (place === 'authorization') return scheme === 'apikey' ? 'apiKey' : scheme === 'bearer' ? 'bearer' : 'authorization';
  return `${versionName}:${place.startsWith('query:') ? 'query' : place}`;
}

/** The first credential in a place the version refuses, or else the one in the first place it accepts. */
export function triedCredential(c: Context<AppEnv>, rules: CredentialRules, header: RequestHeader): Presented | undefined {
  // A plain query names no credential (`plainQuery`): only another may hold `key` or `token`.
  const places = c.req.url.includes('?') && plainQuery(c.req.url) === undefined ? ALL_PLACES : HEADER_PLACES;
  let chosen: Presented | undefined;
  let chosenRank = rules.places.length;
  for (const place of places) {
    const value = presentedValue(c, place, header);
    if (value === undefined) continue;
    const rank = rules.places.indexOf(place);
    if (rank < 0) return { place, value, accepted: false };
    if (rank < chosenRank) {
      chosen = { place, value, accepted: true };
      chosenRank = rank;
    }
  }
  return chosen;
}

const AUTHORIZATION = /^\s*(\S+)\s+(\S+)\s*$/;

/** The secret a credential carries, or the 401 its form alone earns (a place or scheme the version refuses, a malformed header). */
export function presentedSecret(tried: Presented, rules: CredentialRules, versionName: string, challenge: Challenge): Secret | ApiError {
  const { place, value } = tried;
  if (!tried.accepted) {
    return challenge('auth/credentialNotAccepted', `${versionName} accepts credentials only in the Authorization header; remove the ${describePlace(place)}.`);
  }
  // Legacy places carry a bare secret: a project key, else a personal or OAuth token.
  if (place !== 'authorization') return { value, scheme: undefined, kinds: ['apiKey', 'personalToken'], label: label(place, undefined, versionName) };
  const match = AUTHORIZATION.exec(value);
  const scheme = match ? schemeOf(match[1]!) : undefined;
  if (!match || !scheme) return challenge('auth/invalidCredential', 'The Authorization header must be "ApiKey <key>" or "Bearer <token>".');
  if (!rules.schemes.includes(scheme)) {
    return challenge('auth/credentialNotAccepted', `${versionName} does not accept ${scheme === 'apikey' ? 'API keys' : 'Bearer tokens'}.`);
  }
  return { value: match[2]!, scheme, kinds: scheme === 'apikey' ? ['apiKey'] : ['personalToken'], label: label(place, scheme, versionName) };
}

function schemeOf(name: string): Scheme | undefined {
  const lower = name.toLowerCase();
  return lower === 'apikey' ? 'apikey' : lower === 'bearer' ? 'bearer' : undefined;
}

export function describePlace(place: CredentialPlace): string {
  return place.startsWith('query:') ? `"${place.slice('query:'.length)}" query parameter` : `${place} header`;
}

/** RFC 7235 challenges for the accepted schemes; RFC 6750 `invalid_token` for a bad Bearer token. */
export function wwwAuthenticate(rules: CredentialRules, realm: string, bearerError: boolean): string {
  return rules.schemes
    .map((s) => (s === 'apikey' ? `ApiKey realm="${realm}"` : `Bearer realm="${realm}"${bearerError ? ', error="invalid_token"' : ''}`))
    .join(', ');
}
