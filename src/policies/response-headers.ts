import type { Context } from 'hono';
import type { AppEnv } from '../env';

/**
 * The headers the policies put on every response (request id, HSTS, CORS, rate-limit counts, a
 * version's own headers), gathered per request as plain pairs before the handler runs. The
 * handlers and the error renderer build their response once with them (`respond`), so no
 * `Headers` object is made and changed per policy: on Node that keeps @hono/node-server on its
 * fast path of plain header objects. A response built any other way (a redirect, a preflight, a
 * route outside the core) gets them set on its `Headers` when the policies are done, as before.
 */
export class ResponseHeaders {
  /**
   * Lower-case names, so a policy's header replaces a handler's of the same name in any spelling.
   * A removed name keeps its member, `undefined`: deleting a member would turn the object into a
   * dictionary, slower to write and to walk for the rest of the request.
   */
  private readonly fields: Record<string, string | undefined> = {};
  /** Names whose value is added after a handler's own rather than replacing it (rare: v1's `Link`). */
  private appended: Record<string, true> | undefined;
  /** Names removed from the response whoever set them (rare: `Vary` on an error). */
  private removed: Set<string> | undefined;
  /** The last response `respond` built with these headers, and its body's size in bytes. */
  built: Response | undefined;
  builtBytes: number | undefined;

  /** Replaces any value of `name`, the handler's included. */
  set(name: string, value: string): void {
    const key = name.toLowerCase();
    this.fields[key] = value;
    if (this.appended) delete this.appended[key];
  }

  /** Removes `name`, and the handler's value of it too: the response goes without it. */
  delete(name: string): void {
    const key = name.toLowerCase();
    (this.removed ??= new Set()).add(key);
    if (key in this.fields) this.fields[key] = undefined;
    if (this.appended) delete this.appended[key];
  }

  /** Adds a value after any other of `name` (`Link`): both survive, comma-joined as `Headers` does. */
  append(name: string, value: string): void {
    const key = name.toLowerCase();
    const known = this.fields[key];
    if (known === undefined) (this.appended ??= {})[key] = true;
    this.fields[key] = known === undefined ? value : `${known}, ${value}`;
  }

  /** `own` (a handler's headers, any spelling) with these merged in, as one plain object. */
  merged(own: Readonly<Record<string, string>>): Record<string, string> {
    const out: Record<string, string> = {};
    const { fields, appended, removed } = this;
    for (const name in own) {
      const key = name.toLowerCase();
      if (!removed?.has(key)) out[key] = own[name]!;
    }
    for (const key in fields) {
      const value = fields[key];
      if (value === undefined) continue;
      const before = appended?.[key] ? out[key] : undefined;
      out[key] = before === undefined ? value : `${before}, ${value}`;
    }
    return out;
  }

  /** Sets them on a response built without them. */
  applyTo(headers: Headers): void {
    if (this.removed) for (const key of this.removed) headers.delete(key);
    for (const key in this.fields) {
      const value = this.fields[key];
      if (value === undefined) continue;
      if (this.appended?.[key]) headers.append(key, value);
      else headers.set(key, value);
    }
  }
}

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
 * header set remembers it, and its body's size for the access line (CONTRACT section 20): a
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
export function bodyBytes(c: Context<AppEnv>): number | Promise<number> {
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
