import { ERROR_CODES, type ErrorCode } from './error-codes';

/** V8's limit on the frames an `Error` captures (Node and workerd); the Workers types leave it out. */
const v8Error = Error as ErrorConstructor & { stackTraceLimit?: number };

/**
 * The one error type handlers throw; `onError` renders it in the caller's version. It is an
 * answer (401, 404, 429, ...), not a fault, and nothing reads its stack: none is captured (on
 * Node, capturing the frames of the policy chain cost about a tenth of a 404's time).
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly detail: string | undefined;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, detail?: string, headers: Record<string, string> = {}) {
    const limit = v8Error.stackTraceLimit;
    v8Error.stackTraceLimit = 0;
    super(detail ?? ERROR_CODES[code].title);
    v8Error.stackTraceLimit = limit;
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.detail = detail;
    this.headers = headers;
  }

  get title(): string {
    return ERROR_CODES[this.code].title;
  }
}
