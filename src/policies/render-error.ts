import type { Context, ErrorHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { Config } from '../config';
import type { AppDeps, AppEnv, Services } from '../env';
import { uncacheable } from './caching';
import { respond } from './response-headers';
import { ClientGone } from './client-body';
import type { RenderedError } from '../versions/version';
import { walk } from '../versions/walker';
import { ApiError } from '../core/api-error';
import { isOAuthCode, oauthErrorName, problemSlug, type ErrorCode } from '../core/error-codes';

/** Any thrown value as an ApiError; the unexpected become `svc/internalError`, details hidden. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof HTTPException) {
    const byStatus: Partial<Record<number, ErrorCode>> = {
      400: 'svc/invalidParameter',
      401: 'auth/invalidCredential',
      404: 'svc/notFound',
      405: 'svc/methodNotAllowed',
      413: 'svc/invalidParameter',
    };
    const code = byStatus[err.status];
    if (code) return new ApiError(code, err.message || undefined);
  }
  return new ApiError('svc/internalError', 'An unexpected error occurred; quote the request id to support.');
}

/** What the renderer needs: the configuration and the log. */
type RenderDeps = Pick<AppDeps, 'config'> & { services: Pick<Services, 'log'> & Partial<Pick<Services, 'clientGone'>> };

/** An app's error handler: every error through `renderError`. */
export const errorHandler =
  (deps: RenderDeps): ErrorHandler<AppEnv> =>
  (err, c) =>
    renderError(err, c, deps);

/** The one error renderer: the caller's version shape (v1 legacy body) or RFC 9457 problem+json. */
export function renderError(err: unknown, c: Context<AppEnv>, { config, services }: RenderDeps): Response {
  const error = toApiError(err);
  // A body that could not be read because its sender left is not a failure of the gateway.
  if (error.code === 'svc/internalError' && err !== error && !(err instanceof ClientGone) && !services.clientGone?.(c)) {
    services.log({
      level: 'error',
      request_id: c.get('requestId'),
      trace_id: c.get('trace')?.traceId,
      error: err instanceof Error ? err.name : typeof err,
      message: err instanceof Error ? err.message : undefined,
    });
  }
  const rendered = walk.error(c.get('version'), error) ?? (isOAuthCode(error.code) ? oauthError(error) : problemJson(error, config, c.get('requestId')));
  // No cache keeps an error: the next request may well succeed (docs/reference/requests.md).
  uncacheable(c);
  // For HEAD too: Hono drops the body after the length of GET's has been measured (policies/head.ts).
  // A spread: on Node 24 it costs 1.6 times a literal where `Object.assign` costs 7.
  return respond(c, JSON.stringify(rendered.body), error.status, { ...error.headers, 'Content-Type': rendered.contentType });
}

/** The RFC 9457 problem+json rendering of an error: v2's shape, and that of every path outside a version. */
export function problemJson(error: ApiError, config: Pick<Config, 'docsUrl' | 'serviceName'>, requestId: string): RenderedError {
  return {
    contentType: 'application/problem+json',
    body: {
      type: `${config.docsUrl}/problems/${problemSlug(error.code)}`,
      title: error.title,
      status: error.status,
      code: error.code,
      ...(error.detail ? { detail: error.detail } : {}),
      instance: `urn:${config.serviceName}:request:${requestId}`,
    },
  };
}

/**
 * The token endpoint's error body (RFC 6749 5.2), which OAuth client libraries parse. The
 * description keeps only the characters RFC 6749 allows there: printable ASCII except the
 * double quote and the backslash.
 */
function oauthError(error: ApiError): RenderedError {
  const description = (error.detail ?? error.title).replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, '');
  return { contentType: 'application/json', body: { error: oauthErrorName(error.code), error_description: description } };
}
