import { serve, type ServerType } from '@hono/node-server';
import { request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestApp } from './harness';

export interface LoopbackServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** A request with headers fetch() would not send as given (a `Host` of our choosing). */
  send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>;
  close(): Promise<void>;
}

/** Serves a test app with `@hono/node-server` on a real loopback port chosen by the OS. */
export function serveOnLoopback(t: TestApp): Promise<LoopbackServer> {
  return new Promise((resolve) => {
    const server: ServerType = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
      resolve({
        origin: `http://127.0.0.1:${info.port}`,
        send: (method, path, headers, body) =>
          new Promise((done, fail) => {
            const req = request({ host: '127.0.0.1', port: info.port, method, path, headers }, (res) => {
              let text = '';
              res.setEncoding('utf8');
              res.on('data', (chunk: string) => (text += chunk));
              res.on('end', () => done({ status: res.statusCode!, headers: res.headers, body: text }));
            });
            req.on('error', fail);
            req.end(body);
          }),
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}
