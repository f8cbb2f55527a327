import type { Context } from 'hono';

/** What the runtime knows about the connection a request came over (docs/reference/requests.md). */
export interface ConnectionInfo {
  /** The runtime received the request over TLS. */
  tls: boolean;
  /** The direct peer's address; absent where the runtime does not show it (Workers). */
  remoteAddress?: string;
  /**
   * The client's address as the platform in front of the runtime vouches for it (Workers:
   * `CF-Connecting-IP`, which Cloudflare sets on every request); it outranks the peer and any
   * forwarded header. Absent on Node.
   */
  clientAddress?: string;
}

/** Reads the connection facts of a request; only an entry can know them for real. */
export type ConnectionFacts = (c: Context) => ConnectionInfo;

/**
 * Whether the caller has closed its connection before the answer was written; only an entry can
 * read this cheaply (Node: the response stream; elsewhere the request's abort signal).
 */
export type ClientGone = (c: Context) => boolean;

/** The runtime-neutral default: the request's abort signal, which the runtime aborts when its client leaves. */
export const signalGone: ClientGone = (c) => c.req.raw.signal.aborted;

/**
 * The runtime-neutral default (Workers, in-process tests): the request URL's scheme, which the
 * Workers runtime sets from the client's connection, and no peer address.
 */
export const urlConnection: ConnectionFacts = (c) => ({ tls: new URL(c.req.url).protocol === 'https:' });
