import { urlConnection, type ConnectionFacts } from '../services/connection';

/**
 * The Workers connection facts: the URL's scheme (the client's, since Cloudflare terminates
 * TLS), and the client's address from `CF-Connecting-IP`, which Cloudflare's edge sets on every
 * request it hands a worker, overwriting whatever the client sent.
 */
export const workerConnection: ConnectionFacts = (c) => {
  const client = c.req.header('CF-Connecting-IP');
  return { ...urlConnection(c), ...(client ? { clientAddress: client } : {}) };
};
