/** The one table of error codes: status, title and problem slug. CONTRACT section 6. */
export const ERROR_CODES = {
  'svc/invalidParameter': { status: 400, title: 'Invalid parameter' },
  'auth/missingCredential': { status: 401, title: 'Credential missing' },
  'auth/invalidCredential': { status: 401, title: 'Credential not valid' },
  'auth/tokenExpired': { status: 401, title: 'Token expired' },
  'auth/credentialNotAccepted': { status: 401, title: 'Credential not accepted here' },
  'auth/forbidden': { status: 403, title: 'Access forbidden' },
  'svc/notFound': { status: 404, title: 'Resource not found' },
  'svc/methodNotAllowed': { status: 405, title: 'Method not allowed' },
  'svc/gone': { status: 410, title: 'Version retired' },
  'svc/httpsRequired': { status: 426, title: 'HTTPS required' },
  'svc/rateLimited': { status: 429, title: 'Too many requests' },
  'svc/internalError': { status: 500, title: 'Internal error' },
  'upstream/unavailable': { status: 502, title: 'Upstream unavailable' },
  'upstream/backOff': { status: 503, title: 'Upstream asks to back off' },
  'upstream/timeout': { status: 504, title: 'Upstream timed out' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** `auth/tokenExpired` -> `token-expired`: the last segment of a problem `type` URI. */
export function problemSlug(code: ErrorCode): string {
  const name = code.slice(code.indexOf('/') + 1);
  return name.replace(/[A-Z]/g, (ch) => `-${ch.toLowerCase()}`);
}
