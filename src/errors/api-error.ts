import { ERROR_CODES, type ErrorCode } from './codes';

/** The one error type handlers throw; `onError` renders it in the caller's version. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly detail: string | undefined;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, detail?: string, headers: Record<string, string> = {}) {
    super(detail ?? ERROR_CODES[code].title);
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
