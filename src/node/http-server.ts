/**
 * The Node HTTP server around the app: Node's own limits from the configuration, and an answer
 * in the gateway's shape for every request Node's HTTP layer or the adapter refuses (docs/reference/requests.md), which otherwise get a bare status line, or a closed connection for `CONNECT`.
 */
import { getRequestListener, RequestError } from '@hono/node-server';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Config } from '../config';
import type { ErrorCode } from '../core/error-codes';
import { allowedAt, orList } from '../policies/methods';
import { buildVersions } from '../versions';
import type { Metrics } from '../services/metrics';
import { logAborted, rawResponse, rejection, type Refused, type RejectionDeps } from './rejections';
import { repeated } from './request-header';

type FetchCallback = Parameters<typeof getRequestListener>[0];

/** How often Node checks header and request deadlines: often enough that each holds to within a second. */
export const checkingInterval = (hostile: Config['hostile']) =>
  Math.max(50, Math.min(1000, Math.floor(Math.min(hostile.headersTimeoutMs, hostile.requestTimeoutMs) / 4)));

/** Node's parser errors, by the status they answer; anything else is a malformed request (400). */
const PARSER_ERRORS: Record<string, [ErrorCode, string]> = {
  HPE_HEADER_OVERFLOW: ['svc/headersTooLarge', 'The request headers are larger than the server accepts.'],
  ERR_HTTP_REQUEST_TIMEOUT: ['svc/requestTimeout', 'The request did not arrive in time; the connection is closed.'],
  HPE_INVALID_METHOD: ['svc/notImplemented', 'The server does not know this method.'],
};

/**
 * The adapter's reasons for refusing to build a request: fixed texts, safe to log. Any other
 * message may quote the request, so it is not repeated to the client or the log.
 */
const ADAPTER_REFUSALS = new Set(['Backslash in request path', 'Invalid URL', 'Invalid absolute URL', 'Invalid host header', 'Missing host header']);

const BAD_HOST: [ErrorCode, string] = ['svc/invalidParameter', 'The Host header is not a valid host[:port].'];

/**
 * Whether the Host or the target made the adapter refuse a request: a Host that is not a valid
 * `host[:port]` is `svc/invalidParameter` wherever it is found (docs/reference/requests.md). An origin-form
 * target without a backslash always parses, so a URL that does not is the Host's fault.
 */
function adapterRefusal(message: string, target: string): [ErrorCode, string] {
  if (message === 'Missing host header') return ['svc/invalidParameter', 'The request has no Host header.'];
  if (message === 'Invalid host header') return BAD_HOST;
  if (message === 'Invalid URL' && target.startsWith('/') && !target.includes('\\')) return BAD_HOST;
  if (target === '*') return ['svc/malformedRequest', 'The asterisk target is not served; request a path.'];
  if (message === 'Backslash in request path') return ['svc/malformedRequest', 'The request path holds a backslash.'];
  return ['svc/malformedRequest', 'The request target is not a path or an absolute http(s) URL.'];
}

/** The peer closed or reset the connection mid-request: nobody is left to answer. */
const CLIENT_GONE = new Set(['ECONNRESET', 'EPIPE', 'HPE_INVALID_EOF_STATE']);

export function createGatewayServer(
  fetch: FetchCallback,
  config: Config,
  deps: Omit<RejectionDeps, 'config'> & { metrics?: Pick<Metrics, 'httpRejection' | 'connectionRefused'> },
): Server {
  const rejections: RejectionDeps = { ...deps, config };
  // Which methods a path serves depends on its version (CORS adds OPTIONS): the app's versions.
  const versions = buildVersions(config);
  const { hostile } = config;
  // The request the adapter is building: it refuses a bad target synchronously, while this is set.
  let building: IncomingMessage | undefined;
  // The last request of each connection: a client leaving mid-body is that request's to log.
  const lastRequest = new WeakMap<object, IncomingMessage>();
  const listener = getRequestListener(fetch, {
    errorHandler: (err) => {
      const incoming = building;
      if (err instanceof RequestError && incoming) {
        const [code, detail] = adapterRefusal(err.message, incoming.url ?? '');
        const refused = { reason: ADAPTER_REFUSALS.has(err.message) ? err.message : 'RequestError', method: incoming.method, target: incoming.url };
        const r = rejection(rejections, code, detail, refused);
        return new Response(r.body, { status: r.status, headers: r.headers });
      }
      // The app renders its own errors, so only a failure of that rendering itself arrives here.
      deps.log({ level: 'error', error: err instanceof Error ? err.name : typeof err, message: err instanceof Error ? err.message : undefined });
      const r = rejection(rejections, 'svc/internalError', 'An unexpected error occurred; quote the request id to support.', { reason: 'internal' });
      return new Response(r.body, { status: r.status, headers: r.headers });
    },
  });

  const server = createServer(
    {
      // Node refuses a headers deadline later than the whole request's.
      headersTimeout: Math.min(hostile.headersTimeoutMs, hostile.requestTimeoutMs),
      requestTimeout: hostile.requestTimeoutMs,
      keepAliveTimeout: hostile.keepAliveTimeoutMs,
      connectionsCheckingInterval: checkingInterval(hostile),
      // Node would answer a missing Host with a bare 400; the adapter refuses it instead, answered below.
      requireHostHeader: false,
    },
    (incoming, outgoing) => {
      lastRequest.set(incoming.socket, incoming);
      // RFC 9112 3.2: more than one Host is refused; Node keeps only the first, so only here can it be seen.
      if (repeated(incoming.rawHeaders, 'host')) {
        const r = rejection(rejections, 'svc/invalidParameter', 'The request carries more than one Host header.', {
          reason: 'DUPLICATE_HOST',
          method: incoming.method,
          target: incoming.url,
        });
        outgoing.writeHead(r.status, r.headers).end(r.body);
        return;
      }
      building = incoming;
      try {
        void listener(incoming, outgoing);
      } finally {
        building = undefined;
      }
    },
  );
  server.keepAliveTimeout = hostile.keepAliveTimeoutMs;
  server.maxConnections = hostile.maxConnections;
  // Node closes a connection past `maxConnections` at once, and says so only by this event.
  const { metrics } = deps;
  if (metrics) server.on('drop', () => metrics.connectionRefused());

  const answerSocket = (socket: Duplex, code: ErrorCode, detail: string, refused: Refused) => {
    socket.on('error', () => socket.destroy());
    socket.end(rawResponse(rejection(rejections, code, detail, refused)));
  };

  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // The response Node has begun for a request whose body was still arriving, if any.
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean; req?: IncomingMessage } })._httpMessage;
    if (CLIENT_GONE.has(err.code ?? '') || !socket.writable) {
      // Left mid-body: the app has logged that request (answered, or aborted). Left mid-head: nobody has.
      const last = lastRequest.get(socket);
      if (!inFlight && (!last || last.complete) && (socket as Duplex & { bytesRead?: number }).bytesRead)
        logAborted(rejections, { reason: err.code ?? 'unknown' });
      socket.destroy();
      return;
    }
    if (inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const [code, detail] = PARSER_ERRORS[err.code ?? ''] ?? ['svc/malformedRequest', 'The request line or headers are malformed.'];
    answerSocket(socket, code, detail, { reason: err.code ?? 'unknown', method: inFlight?.req?.method, target: inFlight?.req?.url });
  });

  server.on('checkExpectation', (req, res) => {
    const r = rejection(rejections, 'svc/expectationFailed', 'Only Expect: 100-continue is supported.', {
      reason: 'EXPECTATION',
      method: req.method,
      target: req.url,
    });
    res.writeHead(r.status, r.headers).end(r.body);
  });

  // CONNECT would make the server a tunnel; the gateway refuses it like any method it does not serve.
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    const target = req.url ?? '';
    const allow = allowedAt(versions, target.startsWith('/') ? target.split('?')[0]! : '/');
    answerSocket(socket, 'svc/methodNotAllowed', `CONNECT is not allowed here; use ${orList(allow)}.`, {
      reason: 'CONNECT',
      method: 'CONNECT',
      target,
      headers: { Allow: allow },
    });
  });
  return server;
}
