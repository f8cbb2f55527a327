import { Hono, type Context, type ErrorHandler, type Handler, type MiddlewareHandler } from 'hono';
import { isPromise, type MaybePromise } from '../core/maybe-promise';
import type { AppEnv } from '../env';

/**
 * One policy every request meets before any route (src/policies/index.ts lists them in order).
 * `before` may refuse by throwing an `ApiError`, answer by returning a response (a redirect, a
 * preflight), or let the request go on; `after` runs once a response exists, whichever answered,
 * and only for a policy whose `before` let the request go on (as code after `await next()` in a
 * middleware). Either may be synchronous: a policy with nothing to wait for costs no promise.
 */
export interface Policy {
  before?(c: Context<AppEnv>): MaybePromise<Response | undefined>;
  after?(c: Context<AppEnv>): MaybePromise<void>;
}

/**
 * The policies around one route: `route` is called once every `before` has let the request go on.
 * The result comes at once when nothing on the way is a promise (a kept answer), later otherwise.
 */
export type PolicyChain = (c: Context<AppEnv>, route: () => MaybePromise<RouteResult>) => MaybePromise<Response>;
/** What a route or a route's middleware returns: its response, or nothing once it has set `c.res`. */
// biome-ignore lint/suspicious/noConfusingVoidType: Hono types a middleware's result as `void`.
type RouteResult = Response | undefined | void;

/**
 * The policies as one chain: each `before` in order, then the route, then each `after` in reverse
 * order, exactly as a chain of middlewares would run them, without a middleware, a dispatch and a
 * promise per policy per request. A refusal, or the route's error, is rendered by `onError` (the
 * app's error handler) where it happens, so the policies before it see its response, as they
 * would see one from the chain. It runs synchronously for as long as every step answers at once,
 * and goes on when a promise settles from the step it came from.
 */
export function policyChain(list: readonly Policy[], onError: ErrorHandler<AppEnv>): PolicyChain {
  const policies = [...list];
  const count = policies.length;

  /** The `after`s of the first `passed` policies, last first, once `c.res` is the answer. */
  const after = (c: Context<AppEnv>, passed: number): MaybePromise<Response> => {
    for (let i = passed - 1; i >= 0; i--) {
      const done = policies[i]!.after?.(c);
      if (isPromise(done)) return done.then(() => after(c, i));
    }
    return c.res;
  };

  const answered = (c: Context<AppEnv>, passed: number, res: Response) => {
    c.res = res;
    return after(c, passed);
  };

  /** What a chain of middlewares does with an error: an Error becomes its rendered response, anything else propagates. */
  const refused = (c: Context<AppEnv>, passed: number, err: unknown): MaybePromise<Response> => {
    if (!(err instanceof Error)) throw err;
    c.error = err;
    const res = onError(err, c);
    return isPromise(res) ? res.then((rendered) => answered(c, passed, rendered)) : answered(c, passed, res);
  };

  /** The route's result, taken as Hono's dispatch takes it: unless the route has already set its response. */
  const routed = (c: Context<AppEnv>, result: RouteResult) => {
    if (result && !c.finalized) c.res = result;
    if (!c.finalized) return refused(c, count, new Error('the route returned no response'));
    return after(c, count);
  };

  /** The `before`s from policy `start` on, then the route. */
  const from = (c: Context<AppEnv>, route: () => MaybePromise<RouteResult>, start: number): MaybePromise<Response> => {
    let i = start;
    let answer: Response | undefined;
    let result: MaybePromise<RouteResult>;
    try {
      for (; i < count; i++) {
        const step = policies[i]!.before?.(c);
        if (step === undefined) continue;
        if (isPromise(step)) {
          const at = i;
          return step.then(
            (later) => (later ? answered(c, at, later) : from(c, route, at + 1)),
            (err) => refused(c, at, err),
          );
        }
        answer = step;
        break;
      }
      if (!answer) result = route();
    } catch (err) {
      return refused(c, i, err);
    }
    // Outside the `try`: an `after` that throws is not a refusal (its own would run twice).
    if (answer) return answered(c, i, answer);
    if (isPromise(result)) {
      return result.then(
        (later) => routed(c, later),
        (err) => refused(c, count, err),
      );
    }
    return routed(c, result);
  };

  return (c, route) => from(c, route, 0);
}

/**
 * The routes of `routes` behind the policies: every route, and the answer to a path no route
 * serves, runs inside the chain. Each route is the only handler Hono calls for its path, so a kept
 * answer goes out without a promise. When a request matches more than one handler (a route's own
 * middleware, then the route), the first runs the chain and the rest run inside it.
 */
export function behindPolicies(routes: Hono<AppEnv>, chain: PolicyChain, notFound: (c: Context<AppEnv>) => MaybePromise<Response>): Hono<AppEnv> {
  const inChain = new WeakSet<Context<AppEnv>>();
  const guarded = (c: Context<AppEnv>, route: () => MaybePromise<RouteResult>) => {
    if (inChain.has(c)) return route();
    inChain.add(c);
    return chain(c, route);
  };
  const app = new Hono<AppEnv>();
  for (const { method, path, handler } of routes.routes) {
    const h = handler as MiddlewareHandler<AppEnv>;
    // What `guarded` returns past a route's middleware is what the middleware returns, as Hono expects of it.
    const behind: Handler<AppEnv> = (c, next) => guarded(c, () => h(c, next)) as MaybePromise<Response>;
    app.on(method, path, behind);
  }
  app.notFound((c) => guarded(c, () => notFound(c)) as MaybePromise<Response>);
  return app;
}

/** One policy as a middleware of its own (tests compose a few of them). */
export function asMiddleware(policy: Policy): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const answer = policy.before ? await policy.before(c) : undefined;
    if (answer) return answer;
    await next();
    await policy.after?.(c);
  };
}
