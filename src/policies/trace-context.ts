import type { Config } from '../config';
import { RequestTrace } from '../core/request-trace';
import { parseTraceparent } from '../core/trace-context';
import type { Policy } from './policy';
import { REQUEST_ID_KEY } from '../core/request-id';
import { fetchHeader, type RequestHeader } from '../services/request-header';

/** At most 128 visible ASCII characters (docs/reference/observability.md). */
const CLIENT_REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

/**
 * What ties a request to others (docs/reference/observability.md): its trace, continued from the caller's
 * `traceparent` only with `TRUST_TRACEPARENT` (a header from the internet could otherwise pick the
 * trace a request is filed under), else a new one; and the caller's own `Svc-Request-Id`, never
 * the gateway's id, kept for the log when it is a valid token. `tracestate` is never read, so it
 * is never forwarded.
 */
export const traceContext = (config: Pick<Config, 'trustTraceparent'>, traced = true, header: RequestHeader = fetchHeader): Policy =>
  traced
    ? {
        before(c) {
          const incoming = config.trustTraceparent ? parseTraceparent(header(c, 'traceparent')) : undefined;
          c.set('trace', RequestTrace.start(incoming));
          const clientId = header(c, REQUEST_ID_KEY);
          if (clientId !== undefined && CLIENT_REQUEST_ID.test(clientId)) c.set('clientRequestId', clientId);
          return undefined;
        },
      }
    : // Only for the benchmark of what trace context costs (`PolicyOptions`): no trace id, no client request id.
      {
        before(c) {
          const incoming = config.trustTraceparent ? parseTraceparent(header(c, 'traceparent')) : undefined;
          c.set('trace', RequestTrace.startUntraced(incoming));
          return undefined;
        },
      };
