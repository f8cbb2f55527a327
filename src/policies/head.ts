import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env';

/**
 * `HEAD` answers with the headers `GET` would, `Content-Length` included (RFC 9110 9.3.2). Hono
 * routes HEAD as GET and then drops the body, and with it the length the runtime would have
 * computed; so the body GET would send is measured here, before it is dropped.
 */
export const headLength = () =>
  createMiddleware<AppEnv>(async (c, next) => {
    await next();
    if (c.req.raw.method !== 'HEAD' || !c.res.body || c.res.headers.has('Content-Length')) return;
    const length = (await c.res.arrayBuffer()).byteLength;
    c.res.headers.set('Content-Length', String(length));
  });
