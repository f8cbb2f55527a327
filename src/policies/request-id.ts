import { REQUEST_ID_KEY } from '../core/request-id';
import { asMiddleware, type Policy } from './policy';
import { applyPolicyHeaders, policyHeaders } from './response-headers';

/**
 * A fresh id for every request, on every response (docs/reference/requests.md); never taken from the
 * caller. First of the policies: it starts the request's policy headers and, last of all, sets
 * them on a response that was not built with them.
 */
export const requestIdPolicy = (): Policy => ({
  before(c) {
    const id = crypto.randomUUID();
    c.set('requestId', id);
    c.set('logFlags', []);
    policyHeaders(c).set(REQUEST_ID_KEY, id);
    return undefined;
  },
  after: applyPolicyHeaders,
});

export const requestId = () => asMiddleware(requestIdPolicy());
