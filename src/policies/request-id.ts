import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env';

export const REQUEST_ID_HEADER = 'Svc-Request-Id';

/** A fresh id for every request, on every response (CONTRACT section 13); never taken from the caller. */
export const requestId = () =>
  createMiddleware<AppEnv>(async (c, next) => {
    c.set('requestId', crypto.randomUUID());
    c.set('logFlags', []);
    await next();
    c.res.headers.set(REQUEST_ID_HEADER, c.get('requestId'));
  });
