/** The one table of error codes: status, title and problem slug. docs/reference/errors.md. */
export const ERROR_CODES = {
  'svc/invalidParameter': { status: 400, title: 'Invalid parameter' },
  // Requests the HTTP layer refuses before any route sees them (docs/reference/requests.md).
  'svc/malformedRequest': { status: 400, title: 'Malformed request' },
  'auth/missingCredential': { status: 401, title: 'Credential missing' },
  'auth/invalidCredential': { status: 401, title: 'Credential not valid' },
  'auth/tokenExpired': { status: 401, title: 'Token expired' },
  'auth/credentialNotAccepted': { status: 401, title: 'Credential not accepted here' },
  'auth/forbidden': { status: 403, title: 'Access forbidden' },
  'svc/notFound': { status: 404, title: 'Resource not found' },
  'svc/methodNotAllowed': { status: 405, title: 'Method not allowed' },
  'svc/requestTimeout': { status: 408, title: 'Request not received in time' },
  'svc/gone': { status: 410, title: 'Version retired' },
  'svc/expectationFailed': { status: 417, title: 'Expectation not supported' },
  // The Host (or an absolute target's authority) is valid but not one of PUBLIC_HOSTS (RFC 9110 15.5.20).
  'svc/misdirected': { status: 421, title: 'Host not served here' },
  'svc/httpsRequired': { status: 426, title: 'HTTPS required' },
  'svc/rateLimited': { status: 429, title: 'Too many requests' },
  // Too many failed authentications from this address (or for this client) in the window.
  'svc/tooManyRequests': { status: 429, title: 'Too many failed authentications' },
  'svc/headersTooLarge': { status: 431, title: 'Request headers too large' },
  'svc/internalError': { status: 500, title: 'Internal error' },
  'svc/notImplemented': { status: 501, title: 'Method not implemented' },
  // The bundled dataset's file came back short at run time (cut or replaced while open): /readyz is 503 too.
  'svc/datasetUnavailable': { status: 503, title: 'Dataset unavailable' },
  'upstream/unavailable': { status: 502, title: 'Upstream unavailable' },
  'upstream/backOff': { status: 503, title: 'Upstream asks to back off' },
  'upstream/timeout': { status: 504, title: 'Upstream timed out' },
  // The token endpoint's errors (RFC 6749 5.2; `slow_down` from RFC 8628 3.5), rendered as
  // `{"error", "error_description"}` with the snake_case name of the code.
  'oauth/invalidRequest': { status: 400, title: 'The token request is malformed' },
  'oauth/invalidClient': { status: 401, title: 'Client authentication failed' },
  'oauth/unsupportedGrantType': { status: 400, title: 'Only the client_credentials grant is supported' },
  'oauth/invalidScope': { status: 400, title: 'This server defines no scopes' },
  'oauth/slowDown': { status: 429, title: 'Too many token requests for this client' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Every code's slug, spelled once at load rather than per error answered. */
const SLUGS = Object.fromEntries(
  Object.keys(ERROR_CODES).map((code) => [code, code.slice(code.indexOf('/') + 1).replace(/[A-Z]/g, (ch) => `-${ch.toLowerCase()}`)]),
) as Record<ErrorCode, string>;

/** `auth/tokenExpired` -> `token-expired`: the last segment of a problem `type` URI. */
export function problemSlug(code: ErrorCode): string {
  return SLUGS[code];
}

/** Codes of the token endpoint, which answers in the OAuth 2.0 error shape instead of a problem. */
export function isOAuthCode(code: ErrorCode): boolean {
  return code.startsWith('oauth/');
}

/** `oauth/unsupportedGrantType` -> `unsupported_grant_type`: the RFC 6749 `error` value. */
export function oauthErrorName(code: ErrorCode): string {
  return problemSlug(code).replace(/-/g, '_');
}
