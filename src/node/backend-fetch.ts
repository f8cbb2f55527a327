/**
 * The Node gateway's calls to its backends (the upstream, the legacy v1 backend), over Node's own
 * HTTP client rather than its `fetch`. Node's `fetch` (undici) adds `accept-language: *`,
 * `sec-fetch-mode: cors` and `accept-encoding` to every request, which no code of the gateway
 * asked for; a backend must receive exactly the headers docs/upstream.md lists (docs/reference/operations.md). `node:http` adds only what HTTP/1.1 needs: `Host`, and `Connection: keep-alive` with a
 * pooling agent. The shape is fetch's (a `Response` whose body streams), so the backend clients
 * stay runtime-neutral and the Workers entry keeps the runtime's fetch.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';

/**
 * How long an idle pooled connection is kept: undici's default, and under the 5 s after which
 * Node's own servers close idle keep-alive connections (a backend's `Keep-Alive: timeout=N` hint
 * shortens it further), so a request rarely meets a connection its server is closing.
 */
const IDLE_SOCKET_MS = 4000;

/** Statuses whose responses have no body: `Response` refuses one for them. */
const NULL_BODY = new Set([204, 205, 304]);

/** A fetch for backend calls: GET (or any method without a body), no redirects followed, the caller's headers only. */
export function nodeBackendFetch(): typeof fetch {
  const agents = {
    'http:': new HttpAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
    'https:': new HttpsAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
  };
  return async (input, init = {}) => {
    if (typeof input !== 'string' && !(input instanceof URL)) throw new TypeError('nodeBackendFetch takes a URL, not a Request');
    const url = new URL(input);
    const agent = url.protocol === 'https:' ? agents['https:'] : url.protocol === 'http:' ? agents['http:'] : undefined;
    if (!agent) throw new TypeError(`nodeBackendFetch: ${url.protocol} URLs are not supported`);
    if (init.body != null) throw new TypeError('nodeBackendFetch sends no request body');
    const method = init.method ?? 'GET';
    const incoming = await exchange(url, { method, headers: headerObject(init.headers), agent, signal: init.signal ?? undefined });
    return toResponse(incoming, method);
  };
}

/** One request and its response head; rejects on a connection error or when `signal` aborts first. */
function exchange(
  url: URL,
  options: { method: string; headers: OutgoingHttpHeaders; agent: HttpAgent; signal: AbortSignal | undefined },
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    // `signal` also ends the response's body stream if it aborts later: a deadline covers the whole call.
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, options, resolve);
    request.once('error', reject);
    request.end();
  });
}

/** Headers as given, in their order and case; a `Headers` object or pairs as plain entries. */
function headerObject(headers: HeadersInit | undefined): OutgoingHttpHeaders {
  if (!headers) return {};
  if (headers instanceof Headers || Array.isArray(headers)) return Object.fromEntries(headers);
  return { ...(headers as Record<string, string>) };
}

/** The response head and a body that streams from the socket (cancelling it destroys the socket). */
function toResponse(incoming: IncomingMessage, method: string): Response {
  const headers = new Headers();
  const raw = incoming.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const status = incoming.statusCode ?? 0;
  const empty = method === 'HEAD' || NULL_BODY.has(status);
  if (empty) incoming.resume();
  const body = empty ? null : (Readable.toWeb(incoming) as ReadableStream<Uint8Array>);
  return new Response(body, { status, statusText: incoming.statusMessage, headers });
}
