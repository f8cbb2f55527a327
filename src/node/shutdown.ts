/**
 * Graceful stop of the Node server (docs/reference/operations.md). On `SIGTERM` or `SIGINT`:
 *
 * 1. `/readyz` answers 503 at once (the lifecycle), so a load balancer stops sending new work;
 * 2. the listener keeps accepting for `SHUTDOWN_DELAY_MS` (the balancer's health-check interval:
 *    until it has noticed, connections it still opens must not be refused), and every answer from
 *    the signal on carries `Connection: close`, so keep-alive clients reconnect elsewhere;
 * 3. the listener closes, idle keep-alive connections with it; requests in flight finish, each
 *    answered and logged as usual, for up to `SHUTDOWN_TIMEOUT_MS`; a connection accepted before
 *    the close still has its first request answered, unless it has sent nothing for a second;
 * 4. the process exits 0 once the last connection has closed, or 1 at the deadline with an access
 *    line for each request cut (`"outcome": "cut"`) and one line counting them. Either way exactly
 *    one final line. The batched access log writes what it holds at exit.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ShutdownConfig } from '../config';
import type { LogLine } from '../services/log';
import { redactedTarget } from '../core/redact';

export interface StopDeps {
  /** Switched to stopping at the signal: `/readyz` reads it. */
  lifecycle: { stop(): void };
  log(line: LogLine): void;
  exit(code: number): void;
}

export interface GracefulStop {
  /** Begins the stop; a repeated signal (npm forwards a terminal's `SIGINT` a second time) changes nothing. */
  stop(signal: string): void;
}

/**
 * How long a connection accepted before the listener closed may stay silent. Node leaves such a
 * connection open (its request may be on the way), but one that never speaks (a client's
 * preconnect) would hold the stop until `SHUTDOWN_TIMEOUT_MS`.
 */
const SILENT_GRACE_MS = 1000;

/** A request being answered: its response, and when it arrived. */
interface Answering {
  incoming: IncomingMessage;
  outgoing: ServerResponse;
  at: number;
}

export function gracefulStop(server: Server, config: ShutdownConfig, deps: StopDeps): GracefulStop {
  // Each open connection's requests not yet answered, in order, with when each arrived: kept per
  // connection, not per response, so a request costs one entry and no listener of its own (a
  // listener a response costs about a tenth of a kept page's CPU). A response is answered once
  // Node has closed it (`destroyed`, set as its `close` is emitted); a pipelined request waits
  // behind another, so a connection may hold more than one. A request leaves the list only as the
  // next one arrives, so an empty list is a connection whose first request has not arrived.
  const connections = new Map<Socket, Answering[]>();
  let stopping = false;
  const track = (socket: Socket): Answering[] => {
    const requests: Answering[] = [];
    connections.set(socket, requests);
    socket.once('close', () => connections.delete(socket));
    return requests;
  };
  server.on('connection', (socket: Socket) => void track(socket));
  // First among the listeners, so that even an answer written at once carries the header.
  server.prependListener('request', (incoming, outgoing: ServerResponse) => {
    const requests = connections.get(incoming.socket) ?? track(incoming.socket);
    while (requests.length > 0 && requests[0]!.outgoing.destroyed) requests.shift();
    requests.push({ incoming, outgoing, at: performance.now() });
    if (stopping) outgoing.setHeader('Connection', 'close');
  });
  /** The requests not yet answered, on every connection. */
  const unanswered = (): Answering[] => {
    const out: Answering[] = [];
    for (const requests of connections.values()) for (const r of requests) if (!r.outgoing.destroyed) out.push(r);
    return out;
  };
  /** Connections whose first request has not arrived. */
  const fresh = (): Socket[] => {
    const out: Socket[] = [];
    for (const [socket, requests] of connections) if (requests.length === 0) out.push(socket);
    return out;
  };

  // One final line, whichever of the drain and the deadline comes first: closing every connection
  // at the deadline also completes the listener's close.
  let finished = false;
  const finish = (code: number, line: LogLine) => {
    if (finished) return;
    finished = true;
    deps.log(line);
    deps.exit(code);
  };
  const drained = () => finish(0, { level: 'info', message: 'stopped: every request in flight was answered' });
  const closeListener = () => {
    server.close(() => {
      clearTimeout(deadline);
      drained();
    });
    // Node closes idle keep-alive connections itself on close; said here because the drain relies on it.
    server.closeIdleConnections();
    setTimeout(
      () => {
        for (const socket of fresh()) if (socket.bytesRead === 0) socket.destroy();
      },
      Math.min(SILENT_GRACE_MS, config.timeoutMs),
    ).unref();
    const deadline = setTimeout(() => {
      // Requests being answered, and requests whose head was still arriving.
      const arriving = fresh().filter((socket) => socket.bytesRead > 0);
      const waiting = unanswered();
      const cut = waiting.length + arriving.length;
      if (cut === 0) {
        server.closeAllConnections();
        return drained();
      }
      // Their own access lines will never be written: the handlers are still waiting.
      for (const { incoming, at } of waiting) deps.log(cutLine(incoming.socket, at, incoming));
      for (const socket of arriving) deps.log(cutLine(socket));
      server.closeAllConnections();
      finish(1, { level: 'error', message: `stopped after SHUTDOWN_TIMEOUT_MS (${config.timeoutMs} ms) with ${cut} request${cut === 1 ? '' : 's'} cut`, cut });
    }, config.timeoutMs);
  };

  return {
    stop(signal) {
      if (stopping) return;
      stopping = true;
      deps.lifecycle.stop();
      const waiting = unanswered();
      for (const { outgoing } of waiting) if (!outgoing.headersSent) outgoing.setHeader('Connection', 'close');
      deps.log({ level: 'info', message: `${signal}: draining`, in_flight: waiting.length, delay_ms: config.delayMs, timeout_ms: config.timeoutMs });
      setTimeout(closeListener, config.delayMs);
    },
  };
}

/**
 * The access line of a request cut at the deadline: what is known of it without the handler
 * (no status was sent), its path redacted as every access line's is. A request whose head was
 * still arriving has no method or path yet.
 */
function cutLine(socket: Socket, at?: number, incoming?: IncomingMessage): LogLine {
  return {
    time: new Date().toISOString(),
    level: 'warn',
    method: incoming?.method ?? null,
    path: incoming?.url === undefined ? null : redactedTarget(`http://gateway${incoming.url}`),
    status: null,
    outcome: 'cut',
    duration_ms: at === undefined ? null : Math.round((performance.now() - at) * 100) / 100,
    source_address: socket.remoteAddress ?? null,
    user_agent: incoming?.headers['user-agent']?.slice(0, 256) ?? null,
  };
}

/**
 * `SIGTERM` and `SIGINT` stop the server gracefully. `SIGHUP`, whose default is to end the
 * process, never stops it: it has a listener of its own (the credential reload listens as well).
 */
export function listenForStop(stop: GracefulStop['stop']): void {
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGHUP', () => {});
}
