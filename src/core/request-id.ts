/** The header that carries the gateway's id of a request (docs/reference/requests.md), to callers and backends. */
export const REQUEST_ID_HEADER = 'Svc-Request-Id';
/** The same name in lower case, as the policies' response headers take it. */
export const REQUEST_ID_KEY = REQUEST_ID_HEADER.toLowerCase() as Lowercase<typeof REQUEST_ID_HEADER>;
