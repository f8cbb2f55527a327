/** The header that carries the gateway's id of a request (CONTRACT section 13), to callers and backends. */
export const REQUEST_ID_HEADER = 'Svc-Request-Id';
