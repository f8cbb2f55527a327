/**
 * The floors of `npm run bench:instructions`: a server answering every request with the same bytes,
 * already serialized (a real gateway page), so what it costs is the stack's own cost per request.
 * `node` is bare `node:http`; `hono` is Hono on `@hono/node-server`, the gateway's own stack.
 * Plain JavaScript, so no loader runs under valgrind. Prints `{"port": N}` once it listens.
 *
 *   node bench/instructions-floor.mjs node|hono BODY_FILE
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const [kind, file] = process.argv.slice(2);
const body = readFileSync(file);
const announce = (port) => console.log(JSON.stringify({ port }));

if (kind === 'node') {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.byteLength });
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => announce(server.address().port));
} else {
  const { Hono } = await import('hono');
  const { serve } = await import('@hono/node-server');
  const app = new Hono();
  app.get('*', (c) => c.body(body, 200, { 'content-type': 'application/json' }));
  serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => announce(info.port));
}
