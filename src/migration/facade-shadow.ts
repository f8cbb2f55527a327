import { Hono, type Context } from 'hono';
import type { Config } from '../config';
import type { AppEnv, Services } from '../env';
import { ApiError } from '../core/api-error';
import { errorHandler, renderError } from '../policies/render-error';
import type { Version } from '../versions/version';
import type { Side } from './compare';

type Vars = AppEnv['Variables'];

/** What the gateway learnt of the request before the routes, handed to the shadow as it stands. */
const CARRIED = ['requestId', 'trace', 'version', 'base', 'host', 'caller'] as const;

/**
 * The facade's answer to a v1 request the legacy backend has already answered: the same core
 * routes the gateway serves v1 with, for the caller the gateway authenticated, rendered in v1,
 * with none of the policies (no second rate-limit count, no second access-log line).
 */
export function facadeShadow(core: Hono<AppEnv>, version: Version, config: Config, services: Pick<Services, 'log'>): (c: Context<AppEnv>) => Promise<Side> {
  const app = new Hono<AppEnv>();
  app.use(async (c, next) => {
    const vars = c.env as Vars;
    for (const name of [...CARRIED, 'logFlags'] as const) c.set(name, vars[name] as never);
    await next();
  });
  for (const base of version.bases) app.route(base, core);
  app.notFound((c) => renderError(new ApiError('svc/notFound'), c, { config, services }));
  app.onError(errorHandler({ config, services }));

  return async (c) => {
    const vars = { ...Object.fromEntries(CARRIED.map((name) => [name, c.get(name)])), logFlags: [] } as unknown as Vars;
    const res = await app.fetch(new Request(c.req.url), vars);
    return { status: res.status, body: JSON.parse(await res.text()) };
  };
}
