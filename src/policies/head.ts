import type { Policy } from './policy';

/**
 * `HEAD` answers with the headers `GET` would, `Content-Length` included (RFC 9110 9.3.2). Hono
 * routes HEAD as GET and then drops the body, and with it the length the runtime would have
 * computed; so the body GET would send is measured here, before it is dropped.
 */
export const headLength = (): Policy => ({
  after(c) {
    if (c.req.raw.method !== 'HEAD' || !c.res.body || c.res.headers.has('Content-Length')) return;
    const res = c.res;
    return res.arrayBuffer().then((body) => res.headers.set('Content-Length', String(body.byteLength)));
  },
});
