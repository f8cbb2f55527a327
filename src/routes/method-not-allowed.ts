import type { Context } from 'hono';
import type { AppEnv } from '../env';
import { ApiError } from '../errors/api-error';

/** What the resource, description, docs and health routes serve. */
export const READ_ONLY = 'GET, HEAD';

/** A handler answering 405 with the methods the path does serve in `Allow`. */
export const methodNotAllowed =
  (allow: string) =>
  (c: Context<AppEnv>): never => {
    throw new ApiError('svc/methodNotAllowed', `${c.req.method.slice(0, 20)} is not allowed here; use ${allow.replace(', ', ' or ')}.`, { Allow: allow });
  };
