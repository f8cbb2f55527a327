import { REQUEST_ID_HEADER } from '../../core/request-id';

/** Who calls: the gateway by name, not the runtime's default (`node` on Node's fetch). */
export const BACKEND_USER_AGENT = 'botanical-gateway';

/**
 * The headers the gateway itself puts on every call to a backend (docs/upstream.md lists them,
 * with those the runtime's HTTP client adds): nothing of the caller's request but the gateway's
 * own request id, and the request's trace with a span of the call's own.
 */
export function backendHeaders(requestId: string, traceparent: string, authorization: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {
    Accept: 'application/json',
    'User-Agent': BACKEND_USER_AGENT,
    [REQUEST_ID_HEADER]: requestId,
    traceparent,
  };
  if (authorization) headers.Authorization = authorization;
  return headers;
}
