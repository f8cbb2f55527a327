/**
 * A value that comes at once or later. On Node the credential digest, the credential store, the
 * rate limiter and a warm dataset all answer at once; on Workers (KV, a Durable Object, pieces
 * fetched on first use) they answer later. Awaiting a value that is already there still costs a
 * promise and a turn of the microtask queue per request, which the benchmarks measure on the
 * request path, so the hot paths keep a synchronous shortcut: these helpers are
 * the one way to write it.
 */
export type MaybePromise<T> = T | Promise<T>;

/** Whether `value` comes later (any thenable counts). */
export function isPromise<T>(value: MaybePromise<T>): value is Promise<T> {
  return typeof (value as Promise<T> | undefined)?.then === 'function';
}

/** `fn` of `value`: at once when `value` is there, once it has come otherwise. */
export function andThen<T, U>(value: MaybePromise<T>, fn: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return isPromise(value) ? value.then(fn) : fn(value);
}

/** Like `Promise.all`, without a promise when every value is already there. */
export function allOf<T>(values: readonly MaybePromise<T>[]): MaybePromise<T[]> {
  return values.some(isPromise) ? Promise.all(values) : (values as T[]);
}
