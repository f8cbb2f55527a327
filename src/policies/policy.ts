import type { Context, ErrorHandler, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env';

/**
 * One policy every request meets before any route (src/policies/index.ts lists them in order).
 * `before` may refuse by throwing an `ApiError`, answer by returning a response (a redirect, a
 * preflight), or let the request go on; `after` runs once a response exists, whichever answered,
 * and only for a policy whose `before` let the request go on (as code after `await next()` in a
 * middleware). Either may be synchronous: a policy with nothing to wait for costs no promise.
 */
export interface Policy {
  before?(c: Context<AppEnv>): Response | undefined | Promise<Response | undefined>;
  after?(c: Context<AppEnv>): void | Promise<void>;
}

/** Whether a value that may come at once or later comes later. */
export const isPromise = <T>(value: T | Promise<T>): value is Promise<T> => typeof (value as Promise<T> | undefined)?.then === 'function';

/**
 * The policies as one middleware: each `before` in order, then the routes, then each `after` in
 * reverse order, exactly as a chain of middlewares would run them, without a middleware, a
 * dispatch and a promise per policy per request. A refusal is rendered by `onError` (the app's
 * error handler) where it happens, so the policies before it see its response, as they would see
 * one from the chain.
 */
export function policyChain(list: readonly Policy[], onError: ErrorHandler<AppEnv>): MiddlewareHandler<AppEnv> {
  const policies = [...list];
  return async (c, next) => {
    // How many policies let the request go on: theirs are the `after`s to run.
    let passed = 0;
    try {
      let answer: Response | undefined;
      for (; passed < policies.length; passed++) {
        const before = policies[passed]!.before;
        if (!before) continue;
        const result = before(c);
        answer = isPromise(result) ? await result : result;
        if (answer) break;
      }
      if (answer) c.res = answer;
      else await next();
    } catch (err) {
      // What the chain would do: an Error becomes its rendered response, anything else propagates.
      if (!(err instanceof Error)) throw err;
      c.error = err;
      c.res = await onError(err, c);
    }
    for (let i = passed - 1; i >= 0; i--) {
      const after = policies[i]!.after;
      if (!after) continue;
      const done = after(c);
      if (isPromise(done)) await done;
    }
  };
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
