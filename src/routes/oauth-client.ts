import { timingSafeEqual } from '../core/crypto';
import type { Services } from '../env';
import { ApiError } from '../core/api-error';
import { decodeParamName } from '../core/query-string';
import { credentialIdOf, type Principal } from '../services/credentials/credential-store';
import { newlineDigestWarning } from '../services/credentials/newline-digest';

/** Compared against when the client id is unknown, so both failures cost the same digest. */
const NO_CLIENT_DIGEST = '0'.repeat(64);

interface ClientCredentials {
  id: string;
  secret: string;
  /** How the client authenticated, for the log: `oauth:basic` or `oauth:body`. */
  method: string;
}

export interface AuthenticatedClient {
  principal: Principal;
  method: string;
  /** Which of the client's secrets it used (`credentialIdOf`): its tokens carry it. */
  credential: string;
}

/**
 * Authenticates the OAuth client of a token request (RFC 6749 2.3.1): HTTP Basic, or
 * `client_id` + `client_secret` in the form, never both. Secrets are compared by SHA-256 digest.
 * Every authentication failure is 401 `invalid_client`; it carries the Basic challenge when the
 * client used the Authorization header (RFC 6749 5.2, docs/reference/access.md). A form-authenticated
 * client gets none, so OAuth libraries report the `invalid_client` body instead of a challenge.
 */
export async function authenticateClient(
  authorization: string | undefined,
  form: URLSearchParams,
  services: Pick<Services, 'credentials' | 'digest' | 'log'>,
  realm: string,
): Promise<AuthenticatedClient> {
  const { credentials: store, digest: hash, log } = services;
  const challenge: Record<string, string> = authorization === undefined ? {} : { 'WWW-Authenticate': `Basic realm="${realm}", charset="UTF-8"` };
  const fail = (detail: string): never => {
    throw new ApiError('oauth/invalidClient', detail, challenge);
  };
  const presented = clientCredentials(authorization, form, fail);
  const client = await store.client(presented.id);
  const digest = await hash(presented.secret);
  // Every secret is compared (one, or two during a rotation), matched or not.
  const held = client?.secretDigests ?? [NO_CLIENT_DIGEST];
  const matched = held.filter((secretDigest) => timingSafeEqual(digest, secretDigest))[0];
  if (client && !matched) {
    const withNewline = await hash(`${presented.secret}\n`);
    if (held.some((secretDigest) => timingSafeEqual(withNewline, secretDigest))) log(newlineDigestWarning(`client:${client.principal.id}`));
  }
  if (!client || !matched) return fail('Unknown client or wrong client secret.');
  return { principal: client.principal, method: presented.method, credential: credentialIdOf(matched) };
}

/**
 * The client a token request names, before anything is verified, so failures can be counted and
 * throttled per `client_id` (docs/reference/requests.md): the body's `client_id`, else the Basic user.
 */
export function claimedClientId(authorization: string | undefined, form: URLSearchParams): string | undefined {
  return form.get('client_id') ?? (authorization === undefined ? undefined : parseBasic(authorization)?.id);
}

/** Whether a token request presents any client authentication at all (without it, nothing failed). */
export function presentsClientAuthentication(authorization: string | undefined, form: URLSearchParams): boolean {
  return authorization !== undefined || form.has('client_id') || form.has('client_secret');
}

function clientCredentials(authorization: string | undefined, form: URLSearchParams, fail: (detail: string) => never): ClientCredentials {
  const bodyId = form.get('client_id') ?? undefined;
  const bodySecret = form.get('client_secret') ?? undefined;
  if (authorization === undefined) {
    if (!bodyId) return fail('Authenticate the client with HTTP Basic or with client_id and client_secret in the body.');
    if (!bodySecret) return fail('client_secret is required: only confidential clients are supported.');
    return { id: bodyId, secret: bodySecret, method: 'oauth:body' };
  }
  const basic = parseBasic(authorization) ?? fail('The Authorization header must be HTTP Basic with the form-encoded client id and secret.');
  if (bodySecret) {
    throw new ApiError('oauth/invalidRequest', 'Use one client authentication method: HTTP Basic or client_secret in the body, not both.');
  }
  if (bodyId && bodyId !== basic.id) throw new ApiError('oauth/invalidRequest', 'client_id in the body differs from the HTTP Basic client id.');
  return basic;
}

/** `Basic base64(urlencode(id) ":" urlencode(secret))` (RFC 6749 2.3.1, RFC 7617). */
function parseBasic(header: string): ClientCredentials | undefined {
  const match = /^\s*basic\s+([A-Za-z0-9+/]+={0,2})\s*$/i.exec(header);
  if (!match) return undefined;
  let text: string;
  try {
    // Both options named: the Workers runtime's types require `ignoreBOM` too (false is the default).
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(Uint8Array.from(atob(match[1]!), (ch) => ch.charCodeAt(0)));
  } catch {
    return undefined;
  }
  const colon = text.indexOf(':');
  if (colon <= 0) return undefined;
  const secret = decodeParamName(text.slice(colon + 1));
  return secret ? { id: decodeParamName(text.slice(0, colon)), secret, method: 'oauth:basic' } : undefined;
}
