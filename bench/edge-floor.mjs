/**
 * The floor of `npm run bench:edge-cpu`: a bare Hono worker answering every request with the same
 * bytes (a real gateway page, the Text module `page.json` beside it), so what it costs is the
 * Workers runtime's and Hono's own cost per request. Bundled by the benchmark with esbuild.
 */
import { Hono } from 'hono';
import page from './page.json';

const body = new TextEncoder().encode(page);
const app = new Hono();
app.get('*', (c) => c.body(body, 200, { 'content-type': 'application/json' }));

export default app;
