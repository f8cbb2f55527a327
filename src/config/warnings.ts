import type { Config } from './types';

/** Below this many bytes a signing secret can be guessed offline from one token (RFC 7518 3.2: at least the hash's size). */
export const MIN_SIGNING_SECRET_BYTES = 32;

/** Settings that are valid but deserve a line at start-up (an entry logs them as warnings). */
export function configWarnings(config: Config, now: number): string[] {
  const warnings: string[] = [];
  // A default that has passed is what the specification intends; only a date the operator set warns.
  const set = (name: Config['datesSet'][number]) => config.datesSet.includes(name);
  if (config.v1Sunset <= now && set('V1_SUNSET'))
    warnings.push(`V1_SUNSET (${new Date(config.v1Sunset).toISOString()}) has passed: every v1 request is answered 410.`);
  if (config.httpsRedirectUntil <= now && set('HTTPS_REDIRECT_UNTIL')) {
    warnings.push(
      `HTTPS_REDIRECT_UNTIL (${new Date(config.httpsRedirectUntil).toISOString()}) has passed: plain HTTP is refused with 426, not redirected (set a later HTTPS_REDIRECT_UNTIL to keep redirecting, and TRUST_PROXY=true behind a TLS proxy).`,
    );
  }
  const secretBytes = config.tokenSigningSecret === undefined ? undefined : new TextEncoder().encode(config.tokenSigningSecret).length;
  if (secretBytes !== undefined && secretBytes < MIN_SIGNING_SECRET_BYTES) {
    warnings.push(
      `TOKEN_SIGNING_SECRET is ${secretBytes} bytes: a secret shorter than ${MIN_SIGNING_SECRET_BYTES} bytes can be guessed from a token, and whoever guesses it can sign tokens; use ${MIN_SIGNING_SECRET_BYTES} random bytes (openssl rand -base64 32).`,
    );
  }
  return warnings;
}
