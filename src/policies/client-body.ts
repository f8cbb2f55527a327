import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env';

/** The request body stopped arriving: its client went away or broke the connection. */
export class ClientGone extends Error {
  constructor() {
    super('The request body stopped arriving.');
    this.name = 'ClientGone';
  }
}

/**
 * Marks a failure to read the request body as the client's, on every runtime (Node: `aborted`;
 * workerd: `Network connection lost.`): read errors of the body become `ClientGone`, which the
 * renderer does not log as a failure and the access log records as an aborted request.
 */
export const clientBody = () =>
  createMiddleware<AppEnv>(async (c, next) => {
    const body = c.req.raw.body;
    if (body) {
      const reader = body.getReader();
      const guarded = new ReadableStream<Uint8Array>({
        async pull(controller) {
          let chunk: ReadableStreamReadResult<Uint8Array>;
          try {
            chunk = await reader.read();
          } catch {
            controller.error(new ClientGone());
            return;
          }
          if (chunk.done) controller.close();
          else controller.enqueue(chunk.value);
        },
        cancel: (reason) => reader.cancel(reason),
      });
      c.req.raw = new Request(c.req.raw, { body: guarded, duplex: 'half' } as RequestInit);
    }
    await next();
  });
