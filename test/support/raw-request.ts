import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  /** Lower-case names; a repeated header's values joined by `, `. */
  headers: Record<string, string>;
  body: string;
  /** The whole response as received, for assertion messages. */
  text: string;
}

/**
 * Writes `request` exactly as given to a fresh TCP connection to `origin` (http://host:port) and
 * reads until the server closes it (the client does not half-close first, which Node may take as the caller leaving): for requests fetch() would not send (an absolute-form
 * target, a bad Host). Send `Connection: close`. `localAddress` picks the client's address
 * (any of 127.0.0.0/8 on loopback), so a test can stand for callers at different addresses.
 */
export function rawRequest(origin: string, request: string, localAddress?: string): Promise<RawResponse> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), ...(localAddress ? { localAddress } : {}) }, () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const [statusLine, ...lines] = text.slice(0, split < 0 ? undefined : split).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim().toLowerCase();
        const value = line.slice(colon + 1).trim();
        headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
      }
      resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0), headers, body: split < 0 ? '' : text.slice(split + 4), text });
    });
  });
}
