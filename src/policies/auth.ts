import type { Context } from 'hono';
import type { AppEnv, Caller, Services } from '../env';
import { ApiError } from '../errors/api-error';
import type { ErrorCode } from '../errors/codes';
import { narrowAccess, type Looked, type Principal } from '../services/credentials/credential-store';
import type { ResourceName } from '../services/record-source';
import type { CredentialPlace, CredentialRules, Scheme, Version } from '../versions/version';
import { plainQuery } from '../core/query-string';
import { isDescriptionPath } from '../openapi/names';
import { findNewlineDigestEntry, newlineDigestWarning } from '../services/credentials/newline-digest';
import { walk } from '../versions/walker';
import type { FailedAuthentications } from './auth-failures';
import { isPromise, type Policy } from './policy';

/** Every place a credential can arrive, whatever the version accepts. */
const ALL_PLACES: readonly CredentialPlace[] = ['authorization', 'x-api-key', 'x-key', 'query:key', 'query:token'];
const HEADER_PLACES = ALL_PLACES.filter((p) => !p.startsWith('query:'));

interface Presented {
  place: CredentialPlace;
  value: string;
}

function presentedValue(c: Context<AppEnv>, place: CredentialPlace): string | undefined {
  return place.startsWith('query:') ? c.req.query(place.slice('query:'.length)) : c.req.header(place);
}

/** Log label of a credential's kind and place: `apiKey`, `bearer`, `v1:x-api-key`, `v1:query`. */
function label(place: CredentialPlace, scheme: Scheme | undefined, versionName: string): string {
  if (place === 'authorization') return scheme === 'apikey' ? 'apiKey' : 'bearer';
  return `${versionName}:${place.startsWith('query:') ? 'query' : place}`;
}

/**
 * Authenticates a versioned request by the version's credential rules (CONTRACT section 7):
 * a credential in a place the version refuses is 401 even beside a valid one; otherwise the first
 * accepted place present is verified. Runs before anything touches data. A request that presents
 * a credential from an address past its failure limit is refused before the secret is looked
 * at; every refused credential is counted and logged (CONTRACT section 18).
 */
export const authenticate = (
  services: Pick<Services, 'credentials' | 'tokens' | 'digest' | 'log'>,
  realm: string,
  failures: FailedAuthentications,
): Policy => ({
  before(c) {
    const version = c.get('version');
    // A version's description is public (CONTRACT section 15); nothing there is counted or limited.
    if (!version || isDescriptionPath(c.req.path, c.get('base'))) return undefined;
    const rules = walk.credentials(version);
    const challenge = (code: ErrorCode, detail: string, bearerError = false) =>
      new ApiError(code, detail, { 'WWW-Authenticate': wwwAuthenticate(rules, realm, bearerError) });

    // A plain query names no credential (`plainQuery`): only another may hold `key` or `token`.
    const places = c.req.url.includes('?') && plainQuery(c.req.url) === undefined ? ALL_PLACES : HEADER_PLACES;
    // The first credential in a place the version refuses, and the one in the first place it accepts.
    let refused: Presented | undefined;
    let chosen: Presented | undefined;
    let chosenRank = rules.places.length;
    for (const place of places) {
      const value = presentedValue(c, place);
      if (value === undefined) continue;
      const rank = rules.places.indexOf(place);
      if (rank < 0) refused ??= { place, value };
      else if (rank < chosenRank) {
        chosen = { place, value };
        chosenRank = rank;
      }
    }
    const tried = refused ?? chosen;
    if (!tried) {
      throw challenge(
        'auth/missingCredential',
        `Send a credential in the ${rules.places.map((p) => (p === 'authorization' ? 'Authorization header' : describePlace(p))).join(', or the ')}.`,
      );
    }
    const guarded = failures.guard(c, undefined, 'svc/tooManyRequests');
    const decide = (): Promise<undefined> | undefined => {
      // A 401 is a refused credential; anything else (a 500) says nothing about the caller.
      const failed = async (err: unknown): Promise<never> => {
        if (err instanceof ApiError && err.status === 401) await failures.record(c, { place: tried.place, code: err.code });
        throw err;
      };
      let verified: Caller | Promise<Caller>;
      try {
        if (refused) {
          throw challenge(
            'auth/credentialNotAccepted',
            `${version.name} accepts credentials only in the Authorization header; remove the ${describePlace(refused.place)}.`,
          );
        }
        verified = verify(services, chosen!, rules, version.name, challenge);
      } catch (err) {
        return failed(err);
      }
      return isPromise(verified) ? verified.then((caller) => admit(c, version, caller), failed) : admit(c, version, verified);
    };
    return guarded ? guarded.then(decide) : decide();
  },
});

/** The authenticated caller goes on, unless the version is a closed preview it is not in. */
function admit(c: Context<AppEnv>, version: Version, caller: Caller): undefined {
  c.set('caller', caller);
  if (walk.previewOnly(version) && !caller.principal.access.preview) {
    throw new ApiError('auth/forbidden', `${version.name} is a closed preview; this credential is not in it.`);
  }
  return undefined;
}

/** `fn` of a value that may come at once or later: at once when it does (no promise is made). */
function andThen<T, U>(value: T | Promise<T>, fn: (value: T) => U | Promise<U>): U | Promise<U> {
  return isPromise(value) ? value.then(fn) : fn(value);
}

const AUTHORIZATION = /^\s*(\S+)\s+(\S+)\s*$/;

/**
 * The caller behind a credential in an accepted place, or a thrown 401 (a rejected promise when
 * the lookups answer later). Synchronous when the digest and the store answer at once (Node,
 * credentials in memory): a known API key is admitted without a promise.
 */
function verify(
  services: Pick<Services, 'credentials' | 'tokens' | 'digest' | 'log'>,
  chosen: Presented,
  rules: CredentialRules,
  versionName: string,
  challenge: (code: ErrorCode, detail: string, bearerError?: boolean) => ApiError,
): Caller | Promise<Caller> {
  let secret = chosen.value;
  let scheme: Scheme | undefined;
  let found: Looked<Principal>;
  let kinds: Array<'apiKey' | 'personalToken'>;
  if (chosen.place === 'authorization') {
    const match = AUTHORIZATION.exec(chosen.value);
    scheme = match ? schemeOf(match[1]!) : undefined;
    if (!match || !scheme) throw challenge('auth/invalidCredential', 'The Authorization header must be "ApiKey <key>" or "Bearer <token>".');
    if (!rules.schemes.includes(scheme)) {
      throw challenge('auth/credentialNotAccepted', `${versionName} does not accept ${scheme === 'apikey' ? 'API keys' : 'Bearer tokens'}.`);
    }
    secret = match[2]!;
    found = scheme === 'apikey' ? andThen(services.digest(secret), (digest) => services.credentials.apiKey(digest)) : bearer(services, secret, challenge);
    kinds = scheme === 'apikey' ? ['apiKey'] : ['personalToken'];
  } else {
    // Legacy places carry a bare secret: a project key, else a personal or OAuth token.
    found = andThen(
      andThen(services.digest(secret), (digest) => services.credentials.apiKey(digest)),
      (principal) => principal ?? bearer(services, secret, challenge),
    );
    kinds = ['apiKey', 'personalToken'];
  }
  return andThen(found, (principal) => {
    if (principal) return { principal, credential: label(chosen.place, scheme, versionName) };
    return explainFailure(services, secret, kinds).then(() => {
      throw challenge('auth/invalidCredential', 'The credential is not valid.', scheme === 'bearer');
    });
  });
}

/** A secret that failed: logs a hint when the stored digest was made with a trailing newline. */
async function explainFailure(
  services: Pick<Services, 'credentials' | 'digest' | 'log'>,
  secret: string,
  kinds: Array<'apiKey' | 'personalToken'>,
): Promise<void> {
  const entry = await findNewlineDigestEntry(
    secret,
    services.digest,
    kinds.map((kind) => (digest: string) => services.credentials[kind](digest)),
  );
  if (entry) services.log(newlineDigestWarning(entry));
}

async function bearer(
  services: Pick<Services, 'credentials' | 'tokens' | 'digest'>,
  token: string,
  challenge: (code: ErrorCode, detail: string, bearerError?: boolean) => ApiError,
): Promise<Principal | undefined> {
  try {
    const subject = await services.tokens.verify(token);
    if (!subject) return await services.credentials.personalToken(await services.digest(token));
    // Signed is not enough: the client must still hold the secret the token was issued to.
    const client = await services.credentials.tokenClient(subject.clientId, subject.credential);
    if (!client) throw new ApiError('auth/invalidCredential', 'The access token was issued to a client credential that has been revoked.');
    return { ...client, access: narrowAccess(client.access, subject.access) };
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) throw challenge(err.code, err.detail ?? err.title, true);
    throw err;
  }
}

/** 403 unless the caller's credential reaches this resource family. */
export function requireAccess(c: Context<AppEnv>, resource: ResourceName): void {
  const caller = c.get('caller');
  if (caller && !caller.principal.access.resources.includes(resource)) {
    throw new ApiError('auth/forbidden', `This credential does not grant access to ${resource}.`);
  }
}

function schemeOf(name: string): Scheme | undefined {
  const lower = name.toLowerCase();
  return lower === 'apikey' ? 'apikey' : lower === 'bearer' ? 'bearer' : undefined;
}

function describePlace(place: CredentialPlace): string {
  return place.startsWith('query:') ? `"${place.slice('query:'.length)}" query parameter` : `${place} header`;
}

/** RFC 7235 challenges for the accepted schemes; RFC 6750 `invalid_token` for a bad Bearer token. */
function wwwAuthenticate(rules: CredentialRules, realm: string, bearerError: boolean): string {
  return rules.schemes
    .map((s) => (s === 'apikey' ? `ApiKey realm="${realm}"` : `Bearer realm="${realm}"${bearerError ? ', error="invalid_token"' : ''}`))
    .join(', ');
}
