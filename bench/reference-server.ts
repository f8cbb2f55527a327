/**
 * The reference of `npm run bench:http`: Hono on `@hono/node-server` answering every request with
 * one body that is already serialized (the bytes of a real gateway page), so what it costs is the
 * stack's own cost per request. Prints `{"port": N}` once it listens on an ephemeral loopback port.
 *
 * With a second argument, a JSON file of response headers (a real gateway answer's), it also does
 * what the contract asks of every answer whatever the route: those headers, with a fresh request id
 * and rate-limit count per request, and one JSON access line per request on stdout, timed and
 * written by the gateway's own pieces (`isoTimes`, `batchedLog`). What that costs over the bare
 * reference is the part of a gateway request no route or policy code can save.
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { readFileSync } from 'node:fs';
import { isoTimes } from '../src/core/iso-time';
import { systemClock } from '../src/services/clock';

const body = readFileSync(process.argv[2]!);
const obligations = process.argv[3] ? (JSON.parse(readFileSync(process.argv[3], 'utf8')) as Record<string, string>) : undefined;
const app = new Hono();

if (!obligations) app.get('*', (c) => c.body(body, 200, { 'Content-Type': 'application/json' }));
else {
  // Loaded here, so the bare reference loads nothing of the gateway.
  const { batchedLog } = await import('../src/node/log');
  const { log } = batchedLog(process.stdout);
  const time = isoTimes(systemClock);
  let served = 0;
  app.get('*', (c) => {
    const started = performance.now();
    const requestId = crypto.randomUUID();
    const headers = { ...obligations, 'svc-request-id': requestId, ratelimit: `"default";r=${served++ % 1000};t=30` };
    const res = c.body(body, 200, headers);
    const line = {
      time: time(),
      request_id: requestId,
      trace_id: crypto.randomUUID().replaceAll('-', ''),
      method: c.req.method,
      path: c.req.path,
      version: 'v2',
      route: 'GET /species',
      status: 200,
      duration_ms: Math.round((performance.now() - started) * 100) / 100,
      subject: 'project:demo',
      credential: 'apiKey',
      source_address: '127.0.0.1',
      user_agent: c.req.header('User-Agent')?.slice(0, 256) ?? null,
      response_bytes: body.byteLength,
    };
    log(line);
    return res;
  });
}
serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => console.log(JSON.stringify({ port: info.port })));
