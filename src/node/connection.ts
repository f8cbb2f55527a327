/** What only the Node request's socket and response stream can say: TLS, the peer, whether the caller is gone. */
import type { HttpBindings } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import type { TLSSocket } from 'node:tls';
import type { ConnectionInfo } from '../services/connection';

/** The caller left before its answer was written: Node destroys the response stream with the socket. */
export const nodeClientGone = (c: Context): boolean => (c.env as HttpBindings).outgoing.destroyed;

/** What each open socket is: read once per connection, not per request (keep-alive carries many). */
const connections = new WeakMap<object, ConnectionInfo>();

/** TLS and the peer address from the Node socket, for the transport policy (docs/reference/requests.md). */
export function nodeConnection(c: Context): ConnectionInfo {
  const { socket } = (c.env as HttpBindings).incoming;
  let known = connections.get(socket);
  if (!known) {
    known = { tls: (socket as Partial<TLSSocket>).encrypted === true, remoteAddress: getConnInfo(c).remote.address };
    // A socket whose peer is not known yet (or no longer) is not remembered as such.
    if (known.remoteAddress !== undefined) connections.set(socket, known);
  }
  return known;
}

/** Starts `task` once the response has been written (or the caller has gone), never before. */
export function afterNodeResponse(c: Context, task: () => Promise<void>): void {
  // setImmediate: requests already waiting on the event loop are read before the comparison starts.
  (c.env as HttpBindings).outgoing.once('close', () => setImmediate(() => void task()));
}
