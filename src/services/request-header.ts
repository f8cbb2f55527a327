import type { Context } from 'hono';

/**
 * One request header by its lower-case name, as Fetch's `Headers.get` gives it (every value of a
 * repeated header joined), or undefined when absent. The policies read about eight a request, so
 * an entry may answer from what its runtime has already parsed; the default asks the request's
 * `Headers`.
 */
export type RequestHeader = (c: Context, name: Lowercase<string>) => string | undefined;

export const fetchHeader: RequestHeader = (c, name) => c.req.header(name);
