import { sign, verify } from 'hono/jwt';
import { ApiError } from '../core/api-error';
import type { Clock } from './clock';
import type { Access, Principal } from './credentials/credential-store';
import type { ResourceName } from './record-source';

/** Lifetime of a minted access token (spec: 15 minutes). */
export const TOKEN_LIFETIME_SECONDS = 900;
/** How far ahead of our clock another instance's clock may be when it issues a token. */
const ISSUE_SKEW_SECONDS = 60;

export interface IssuedToken {
  accessToken: string;
  expiresIn: number;
}

/** Whom a verified token was issued to: a client, and which of its secrets (`credentialIdOf`). */
export interface TokenSubject {
  clientId: string;
  /** Absent from tokens issued before tokens named their secret. */
  credential: string | undefined;
  /** The access the client had when the token was issued: the token never reaches beyond it. */
  access: Access;
}

/**
 * Mints and checks the OAuth access tokens. They are HMAC-signed, so any instance with the same
 * secret verifies them without shared state; they name the client and the secret they were issued
 * to, which the caller checks against the credential store on each use (a revoked client's tokens
 * are refused at once, docs/reference/operations.md).
 */
export interface TokenService {
  issue(principal: Principal, credential: string): Promise<IssuedToken>;
  /** Whom the token was issued to; `undefined` when the text is not a signed token at all. */
  verify(token: string): Promise<TokenSubject | undefined>;
}

interface Claims {
  [key: string]: unknown;
  sub: string;
  iat: number;
  exp: number;
  res: ResourceName[];
  pre: boolean;
  /** The secret the token was issued to (`credentialIdOf`). */
  cid?: string;
}

const CREDENTIAL_ID = /^[0-9a-f]{16}$/;
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

export class HmacTokenService implements TokenService {
  constructor(
    private secretOrMake: string | (() => string),
    private readonly clock: Clock,
  ) {}

  private keyOnce: Promise<CryptoKey> | undefined;

  /**
   * The signing secret as an HMAC key, imported once: importing it for every token cost more than
   * the signature. A secret made on demand is made on first use (a Workers isolate's global scope
   * may not draw random values).
   */
  private key(): Promise<CryptoKey> {
    if (!this.keyOnce) {
      if (typeof this.secretOrMake === 'function') this.secretOrMake = this.secretOrMake();
      const raw = new TextEncoder().encode(this.secretOrMake);
      this.keyOnce = crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    }
    return this.keyOnce;
  }

  async issue(principal: Principal, credential: string): Promise<IssuedToken> {
    const iat = Math.floor(this.clock.now() / 1000);
    const claims: Claims = {
      sub: principal.id,
      iat,
      exp: iat + TOKEN_LIFETIME_SECONDS,
      res: [...principal.access.resources],
      pre: principal.access.preview,
      cid: credential,
    };
    return { accessToken: await sign(claims, await this.key(), 'HS256'), expiresIn: TOKEN_LIFETIME_SECONDS };
  }

  async verify(token: string): Promise<TokenSubject | undefined> {
    if (!JWT_SHAPE.test(token)) return undefined;
    let claims: Claims;
    try {
      // Expiry is checked here against the injected clock, not by the library's wall clock.
      claims = (await verify(token, await this.key(), { alg: 'HS256', exp: false, nbf: false, iat: false })) as Claims;
    } catch {
      throw new ApiError('auth/invalidCredential', 'The access token is not valid.');
    }
    const badCredential = claims.cid !== undefined && (typeof claims.cid !== 'string' || !CREDENTIAL_ID.test(claims.cid));
    if (typeof claims.exp !== 'number' || typeof claims.iat !== 'number' || typeof claims.sub !== 'string' || !Array.isArray(claims.res) || badCredential) {
      throw new ApiError('auth/invalidCredential', 'The access token is not valid.');
    }
    // A signed token is still refused if it claims more than we ever grant, so a leaked signing
    // secret or a buggy issuer cannot mint long-lived tokens (docs/reference/requests.md).
    if (claims.exp - claims.iat > TOKEN_LIFETIME_SECONDS || claims.iat * 1000 > this.clock.now() + ISSUE_SKEW_SECONDS * 1000) {
      throw new ApiError('auth/invalidCredential', 'The access token is not valid.');
    }
    if (claims.exp * 1000 <= this.clock.now()) throw new ApiError('auth/tokenExpired', 'The access token has expired; request a new one.');
    return { clientId: claims.sub, credential: claims.cid, access: { resources: claims.res, preview: claims.pre === true } };
  }
}
