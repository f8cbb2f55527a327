import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env';
import { withResponseHeaders } from './response-headers';

export const REQUEST_ID_HEADER = 'Svc-Request-Id';

/** A fresh id for every request, on every response (CONTRACT section 13); never taken from the caller. */
export const requestId = () =>
  createMiddleware<AppEnv>((c, next) => {
    const id = crypto.randomUUID();
    c.set('requestId', id);
    c.set('logFlags', []);
    return withResponseHeaders(c, next, (headers) => headers.set(REQUEST_ID_HEADER, id));
  });
