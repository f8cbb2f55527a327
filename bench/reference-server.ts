/**
 * The reference of `npm run bench:http`: Hono on `@hono/node-server` answering every request with
 * one body that is already serialized (the bytes of a real gateway page), so what it costs is the
 * stack's own cost per request. Prints `{"port": N}` once it listens on an ephemeral loopback port.
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { readFileSync } from 'node:fs';

const body = readFileSync(process.argv[2]!);
const app = new Hono();
app.get('*', (c) => c.body(body, 200, { 'Content-Type': 'application/json' }));
serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => console.log(JSON.stringify({ port: info.port })));
