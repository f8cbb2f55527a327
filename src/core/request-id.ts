/** The header that carries the gateway's id of a request (docs/reference/requests.md), to callers and backends. */
export const REQUEST_ID_HEADER = 'Svc-Request-Id';
