/**
 * The floors of `npm run bench:instructions`: a server answering every request with the same bytes,
 * already serialized (a real gateway page), so what it costs is the stack's own cost per request.
 * `node` is bare `node:http`; `hono` is Hono on `@hono/node-server`, the gateway's own stack;
 * `hono-headers` is the same with the response headers the gateway sends with that page (read from
 * HEADERS_FILE), so the cost of sending them through Node can be told from the gateway's own work.
 * Plain JavaScript, so no loader runs under valgrind. Prints `{"port": N}` once it listens.
 *
 *   node bench/instructions-floor.mjs node|hono|hono-headers BODY_FILE [HEADERS_FILE]
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const [kind, file, headersFile] = process.argv.slice(2);
const body = readFileSync(file);
const headers = kind === 'hono-headers' ? JSON.parse(readFileSync(headersFile, 'utf8')) : { 'content-type': 'application/json' };
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
  // As the gateway answers (`respond`): a Response with a plain record of headers, which the
  // adapter hands to Node's writeHead as it is. (`c.body` with more than one header builds a
  // Fetch `Headers` instead, which costs more than the headers themselves.)
  app.get('*', kind === 'hono' ? (c) => c.body(body, 200, headers) : () => new Response(body, { status: 200, headers }));
  serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => announce(info.port));
}
