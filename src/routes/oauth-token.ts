import { Hono, type Context } from 'hono';
import type { Config } from '../config';
import type { AppEnv, Services } from '../env';
import { ApiError } from '../core/api-error';
import { JSON_TYPE } from '../core/json-body';
import { TOKEN_PATH } from '../core/oauth-paths';
import { FailedAuthentications } from '../policies/auth-failures';
import { boundedText } from '../core/bounded-text';
import { ClientGone } from '../policies/client-body';
import { respond } from '../policies/response-headers';
import { rateLimitHeaders, refusedHeaders, WINDOW_SECONDS } from '../policies/rate-limit';
import { authenticateClient, claimedClientId, presentsClientAuthentication, type AuthenticatedClient } from './oauth-client';

/** A client-credentials request is well under 1 KiB; anything near this limit is not one. */
export const MAX_TOKEN_REQUEST_BYTES = 4 * 1024;

const FORM = 'application/x-www-form-urlencoded';

/**
 * A body past the limit is the client's error; a body that stopped arriving is the client gone
 * (`ClientGone`: not logged as the gateway's failure, and the access line says aborted), on every
 * runtime (Node: `aborted`; workerd: `Network connection lost.`).
 */
const BODY_ERRORS = {
  tooLarge: () => new ApiError('oauth/invalidRequest', `The request body is larger than ${MAX_TOKEN_REQUEST_BYTES} bytes.`),
  broken: () => new ClientGone(),
};

/**
 * `POST /oauth/token` (docs/reference/access.md): the OAuth 2.0 client credentials grant. Errors are
 * thrown as `oauth/*` codes, which the one renderer answers in the RFC 6749 5.2 shape.
 */
export function oauthTokenRoute(
  config: Pick<Config, 'serviceName' | 'tokenRateLimitPerMinute' | 'trustProxy' | 'hostile'>,
  services: Pick<Services, 'credentials' | 'tokens' | 'rateLimiter' | 'connection' | 'header' | 'log' | 'metrics' | 'clock' | 'digest'>,
): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  const failures = new FailedAuthentications(config, services);

  router.post(TOKEN_PATH, async (c) => {
    const form = await readForm(c);
    const grantType = form.get('grant_type');
    if (!grantType) throw new ApiError('oauth/invalidRequest', 'grant_type is required.');
    if (grantType !== 'client_credentials')
      throw new ApiError('oauth/unsupportedGrantType', `grant_type ${grantType.slice(0, 40)} is not supported; use client_credentials.`);
    const { principal: client, method, credential } = await authenticatedClient(c, form);
    c.set('caller', { principal: client, credential: method });
    if (form.get('scope')) throw new ApiError('oauth/invalidScope', 'This server defines no scopes; omit scope to get the full access of the client.');

    // Counted per authenticated client only, so nobody can spend a client's budget by guessing.
    const decision = await services.rateLimiter.hit(`oauth-client:${client.id}`, config.tokenRateLimitPerMinute, WINDOW_SECONDS);
    if (!decision.allowed) {
      services.metrics.refused('token_rate_limit');
      throw new ApiError(
        'oauth/slowDown',
        `More than ${decision.limit} token requests this minute; cache the token until it nears expiry.`,
        refusedHeaders('token', decision),
      );
    }
    const issued = await services.tokens.issue(client, credential);
    // Built once with the policy headers (`respond`), as every core answer: no `Headers` object to change afterwards.
    const body = JSON.stringify({ access_token: issued.accessToken, token_type: 'Bearer', expires_in: issued.expiresIn });
    return respond(c, body, 200, {
      ...JSON_TYPE,
      'cache-control': 'no-store',
      pragma: 'no-cache',
      ...rateLimitHeaders('token', decision),
    });
  });
  /**
   * Client authentication, throttled per source address and per named client (docs/reference/requests.md): past the limit, 429 `slow_down` before the secret is compared, unless the same client
   * authentication succeeded within the window (docs/reference/operations.md); a refused one is counted.
   */
  async function authenticatedClient(c: Context<AppEnv>, form: URLSearchParams): Promise<AuthenticatedClient> {
    const authorization = c.req.header('Authorization');
    if (!presentsClientAuthentication(authorization, form)) return authenticateClient(authorization, form, services, config.serviceName);
    const clientId = claimedClientId(authorization, form);
    const place = authorization === undefined ? 'oauth:body' : 'oauth:basic';
    // What the client presented, as one text: the same authentication gives the same one.
    const presented = `${authorization ?? ''}\n${form.get('client_id') ?? ''}\n${form.get('client_secret') ?? ''}`;
    if (!failures.knownGood(presented)) await failures.guard(c, clientId, 'oauth/slowDown', place);
    try {
      const client = await authenticateClient(authorization, form, services, config.serviceName);
      failures.rememberGood(presented);
      return client;
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) await failures.record(c, { place, code: err.code, ...(clientId ? { clientId } : {}) });
      throw err;
    }
  }
  return router;
}

/**
 * The form body; every parameter at most once (RFC 6749 3.2), and an empty value is an absent
 * one (RFC 6749 3.1), so callers can test parameters for truthiness.
 */
async function readForm(c: Context<AppEnv>): Promise<URLSearchParams> {
  // Read first, so a body past the limit is refused as too large, whatever its type.
  const text = await boundedText(c.req.raw.body, c.req.header('Content-Length'), MAX_TOKEN_REQUEST_BYTES, BODY_ERRORS);
  const mediaType = c.req.header('Content-Type')?.split(';')[0]?.trim().toLowerCase();
  if (mediaType !== FORM) throw new ApiError('oauth/invalidRequest', `The request body must be ${FORM}.`);
  const form = new URLSearchParams(text);
  const seen = new Set<string>();
  for (const [name, value] of [...form]) {
    if (seen.has(name)) throw new ApiError('oauth/invalidRequest', `${name.slice(0, 40)} is given more than once.`);
    seen.add(name);
    if (value === '') form.delete(name);
  }
  return form;
}
