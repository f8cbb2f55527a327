import type { Context } from 'hono';
import type { MaybePromise } from '../core/maybe-promise';
import type { AppEnv } from '../env';
import { ResponseHeaders } from './response-header-set';

/**
 * The request's policy headers. The request-id policy, first of all, starts them; each later
 * policy adds its own.
 */
export function policyHeaders(c: Context<AppEnv>): ResponseHeaders {
  let headers = c.get('responseHeaders');
  if (!headers) c.set('responseHeaders', (headers = new ResponseHeaders()));
  return headers;
}

/** Sets the policy headers on the response when it was not built with them (`respond`): a redirect, a preflight, a route outside the core. */
export function applyPolicyHeaders(c: Context<AppEnv>): void {
  const headers = c.get('responseHeaders');
  if (headers && headers.built !== c.res) headers.applyTo(c.res.headers);
}

/**
 * A response with `headers` and every policy header of the request, built once. The request's
 * header set remembers it, and its body's size for the access line (docs/reference/observability.md): a
 * field per request rather than a weak table per response.
 */
export function respond(c: Context<AppEnv>, body: BodyInit | null, status: number, headers: Readonly<Record<string, string>>): Response {
  const policy = c.get('responseHeaders');
  const res = new Response(body, { status, headers: policy ? policy.merged(headers) : headers });
  if (policy) {
    policy.built = res;
    policy.builtBytes = byteLength(body);
  }
  return res;
}

/**
 * The size in bytes of the body of the request's response: known for what `respond` built (every
 * answer of the core and every error), else its `Content-Length`, else read from a copy (a
 * redirect, a preflight, the health and docs routes).
 */
export function bodyBytes(c: Context<AppEnv>): MaybePromise<number> {
  const res = c.res;
  const policy = c.get('responseHeaders');
  const known = policy?.built === res ? policy.builtBytes : undefined;
  if (known !== undefined) return known;
  if (res.body === null) return 0;
  const length = res.headers.get('Content-Length');
  if (length !== null && /^\d+$/.test(length)) return Number(length);
  return res
    .clone()
    .arrayBuffer()
    .then((bytes) => bytes.byteLength);
}

function byteLength(body: BodyInit | null): number | undefined {
  if (body === null) return 0;
  if (typeof body === 'string') return utf8Length(body);
  if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return body.byteLength;
  return undefined;
}

/** The UTF-8 length of `text`, without encoding it. */
function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      // A surrogate pair: four bytes for two UTF-16 units.
      bytes += 2;
      i++;
    } else bytes += 2;
  }
  return bytes;
}
