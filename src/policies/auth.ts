import type { Context } from 'hono';
import { isPromise, type MaybePromise } from '../core/maybe-promise';
import type { AppEnv, Caller, Services } from '../env';
import { ApiError } from '../core/api-error';
import { narrowAccess, type Looked, type Principal } from '../services/credentials/credential-store';
import type { ResourceName } from '../services/record-source';
import type { Version } from '../versions/version';
import { isDescriptionPath } from '../openapi/names';
import { findNewlineDigestEntry, newlineDigestWarning } from '../services/credentials/newline-digest';
import { walk } from '../versions/walker';
import type { FailedAuthentications } from './auth-failures';
import { type Challenge, describePlace, label, type Presented, presentedSecret, type Secret, triedCredential, wwwAuthenticate } from './presented-credential';
import type { Policy } from './policy';

/**
 * Authenticates a versioned request by the version's credential rules (docs/reference/access.md):
 * a credential in a place the version refuses is 401 even beside a valid one; otherwise the first
 * accepted place present is verified. Runs before anything touches data.
 *
 * The failed-authentication throttle (docs/reference/requests.md and docs/reference/operations.md): a secret that authenticated
 * within the last window, known by its digest, goes straight to its lookup; any other is refused
 * before it is looked up while its address is past the failure limit. So a guesser learns nothing
 * more from that address, and good callers behind the same address are still served. Every
 * refused credential is counted and logged, never with its secret.
 */
export const authenticate = (services: AuthServices, realm: string, failures: FailedAuthentications): Policy => ({
  before(c) {
    const version = c.get('version');
    // A version's description is public (docs/reference/descriptions.md); nothing there is counted or limited.
    if (!version || isDescriptionPath(c.req.path, c.get('base'))) return undefined;
    const rules = walk.credentials(version);
    const challenge: Challenge = (code, detail, bearerError = false) =>
      new ApiError(code, detail, { 'WWW-Authenticate': wwwAuthenticate(rules, realm, bearerError) });
    const tried = triedCredential(c, rules, services.header);
    if (!tried) {
      throw challenge(
        'auth/missingCredential',
        `Send a credential in the ${rules.places.map((p) => (p === 'authorization' ? 'Authorization header' : describePlace(p))).join(', or the ')}.`,
      );
    }
    const attempt: Attempt = { c, version, tried, challenge, services, failures };
    const secret = presentedSecret(tried, rules, version.name, challenge);
    if (secret instanceof ApiError) return refuseByForm(attempt, secret);
    return admitKnownKeyAtOnce(attempt, secret);
  },
});

type AuthServices = Pick<Services, 'credentials' | 'tokens' | 'digest' | 'header' | 'log'>;

/** The credential store's answer to a lookup already made (by the shortcut), so it is not made twice. */
interface AskedAlready {
  answer: Looked<Principal>;
}

/** One request's authentication: what every step needs. */
interface Attempt {
  c: Context<AppEnv>;
  version: Version;
  tried: Presented;
  challenge: Challenge;
  services: AuthServices;
  failures: FailedAuthentications;
}

/**
 * The synchronous shortcut: an API key that authenticated within the window is looked up by the
 * digest remembered with it (no hash) and, where the credential store answers at once (Node's in
 * memory), admitted here without a promise; a promise and a turn of the microtask queue cost every
 * request (without them, and the limiter's decision at once, a sorted page took 5.7 % less CPU),
 * and the hash about a twentieth of a cached page. Returns undefined once the caller is admitted;
 * otherwise the full path's promise, handed what was computed here: for a secret not known good
 * (hashed, and the throttle asks its limiter first), a Bearer token, a store that answers later
 * (Workers' KV), a secret no store holds any more.
 */
function admitKnownKeyAtOnce(attempt: Attempt, secret: Secret): undefined | Promise<undefined> {
  const { services, failures } = attempt;
  const digest = secret.scheme === 'bearer' ? undefined : failures.knownDigest(secret.value);
  if (digest === undefined) return authenticateLater(attempt, secret, services.digest(secret.value));
  const principal = services.credentials.apiKey(digest);
  if (isPromise(principal) || principal === undefined) return authenticateLater(attempt, secret, digest, { answer: principal });
  failures.rememberGood(secret.value, digest);
  return admit(attempt.c, attempt.version, { principal, credential: secret.label });
}

/**
 * Authentication the full way: the throttle unless the secret is known good, the lookup, then the
 * caller admitted, or refused, counted and logged. `digest`, and for a secret that may be an API
 * key `apiKeyAsked`, are what the shortcut already asked for, so nothing is asked twice.
 */
async function authenticateLater(attempt: Attempt, secret: Secret, digestOrPending: MaybePromise<string>, apiKeyAsked?: AskedAlready): Promise<undefined> {
  const { c, version, challenge, services, failures } = attempt;
  const digest = await digestOrPending;
  if (!failures.knownGood(secret.value)) await failures.guard(c, undefined, 'svc/tooManyRequests', secret.label);
  let principal: Principal | undefined;
  try {
    principal = await lookup(services, secret, digest, challenge, apiKeyAsked);
  } catch (err) {
    return refuse(attempt, err);
  }
  if (!principal) {
    const refusal = challenge('auth/invalidCredential', 'The credential is not valid.', secret.scheme === 'bearer');
    await explainFailure(services, secret.value, secret.kinds);
    return refuse(attempt, refusal);
  }
  failures.rememberGood(secret.value, digest);
  return admit(c, version, { principal, credential: secret.label });
}

/** A credential refused by its form alone (a place or scheme the version refuses, a malformed header): throttled, then counted. */
async function refuseByForm(attempt: Attempt, refusal: ApiError): Promise<never> {
  const { c, version, tried, failures } = attempt;
  await failures.guard(c, undefined, 'svc/tooManyRequests', label(tried.place, undefined, version.name));
  return refuse(attempt, refusal);
}

/** Rethrows `err`; a 401 is a refused credential, counted first (anything else, a 500, says nothing about the caller). */
async function refuse({ c, tried, failures }: Attempt, err: unknown): Promise<never> {
  if (err instanceof ApiError && err.status === 401) await failures.record(c, { place: tried.place, code: err.code });
  throw err;
}

/** The authenticated caller goes on, unless the version is a closed preview it is not in. */
function admit(c: Context<AppEnv>, version: Version, caller: Caller): undefined {
  c.set('caller', caller);
  if (walk.previewOnly(version) && !caller.principal.access.preview) {
    throw new ApiError('auth/forbidden', `${version.name} is a closed preview; this credential is not in it.`);
  }
  return undefined;
}

/**
 * The principal behind a secret (its SHA-256 hex `digest`), or undefined when no store holds it;
 * a signed token that fails its own checks throws its 401. An API key is one lookup; a Bearer
 * token is verified as a signed token first, else looked up as a personal token; a secret in a
 * legacy place is tried as an API key, then as a token.
 */
async function lookup(
  services: Pick<Services, 'credentials' | 'tokens'>,
  secret: Secret,
  digest: string,
  challenge: Challenge,
  apiKeyAsked?: AskedAlready,
): Promise<Principal | undefined> {
  if (secret.scheme === 'bearer') return bearer(services, secret.value, digest, challenge);
  const key = await (apiKeyAsked ? apiKeyAsked.answer : services.credentials.apiKey(digest));
  if (secret.scheme === 'apikey') return key;
  return key ?? bearer(services, secret.value, digest, challenge);
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

async function bearer(services: Pick<Services, 'credentials' | 'tokens'>, token: string, digest: string, challenge: Challenge): Promise<Principal | undefined> {
  try {
    const subject = await services.tokens.verify(token);
    if (!subject) return await services.credentials.personalToken(digest);
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
