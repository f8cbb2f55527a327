import { connect, type Socket } from 'node:net';

/** A response as it came off the wire. */
export interface RawAnswer {
  /** Everything the server sent before it closed the connection (or before `until` matched). */
  text: string;
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from the first byte written to the connection's close. */
  closedAfterMs: number;
}

export const opened = (port: number) =>
  new Promise<Socket>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });

/** Parses the first response in `text` (headers lower-cased; the body as sent). */
export function parseAnswer(text: string, closedAfterMs = Number.NaN): RawAnswer {
  const split = text.indexOf('\r\n\r\n');
  const head = split === -1 ? text : text.slice(0, split);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { text, status: Number(statusLine.split(' ')[1]), headers, body: split === -1 ? '' : text.slice(split + 4), closedAfterMs };
}

/**
 * Writes `chunks` to a fresh connection (a number pauses that many milliseconds) and resolves
 * once the server closes it, or after `giveUpMs` (then `closedAfterMs` is Infinity).
 */
export async function exchange(port: number, chunks: (string | Buffer | number)[], giveUpMs = 10_000): Promise<RawAnswer> {
  const socket = await opened(port);
  let text = '';
  const started = Date.now();
  socket.on('data', (chunk) => (text += chunk.toString('latin1')));
  socket.on('error', () => {});
  const closed = new Promise<number>((resolve) => {
    socket.on('close', () => resolve(Date.now() - started));
    setTimeout(() => resolve(Number.POSITIVE_INFINITY), giveUpMs).unref();
  });
  void (async () => {
    for (const chunk of chunks) {
      if (socket.destroyed) return;
      if (typeof chunk === 'number') await new Promise((r) => setTimeout(r, chunk));
      else socket.write(chunk);
    }
  })();
  const closedAfterMs = await closed;
  socket.destroy();
  return parseAnswer(text, closedAfterMs);
}
