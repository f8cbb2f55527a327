/**
 * The one error renderer (src/policies/render-error.ts) as a caller and an operator see it: what
 * any thrown value becomes (an answer's code, or 500 with its details hidden), the problem+json
 * body of each, and the error line an unexpected failure leaves in the log, but not a client that
 * left or an answer thrown on purpose (docs/reference/access.md and docs/reference/requests.md).
 */
import { HTTPException } from 'hono/http-exception';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/core/api-error';
import { ClientGone } from '../../../src/policies/client-body';
import { toApiError } from '../../../src/policies/render-error';
import type { RecordSource } from '../../../src/services/record-source';
import { json } from '../../suites/client';
import { diskApp } from '../../support/gateway';
import { DEMO } from '../../support/harness';

/** A gateway whose source throws `thrown` on every list, with `services` besides. */
function failing(thrown: unknown, services: Parameters<typeof diskApp>[0] = {}) {
  const source = {
    list: async () => {
      throw thrown;
    },
    get: async () => undefined,
  } as unknown as RecordSource;
  return diskApp({ ...services, services: { source, ...services.services } });
}

const errorLines = (t: ReturnType<typeof diskApp>) => t.logs.filter((l) => l.level === 'error');

describe('what a thrown value becomes', () => {
  it("an ApiError is the answer as it is, its title the code's", () => {
    const error = new ApiError('svc/notFound', 'no such species');
    expect(toApiError(error)).toBe(error);
    expect([error.name, error.title, error.status, error.message]).toEqual(['ApiError', 'Resource not found', 404, 'no such species']);
    expect(new ApiError('svc/notFound').message).toBe('Resource not found');
  });

  it.each([
    [400, 'svc/invalidParameter'],
    [401, 'auth/invalidCredential'],
    [404, 'svc/notFound'],
    [405, 'svc/methodNotAllowed'],
    [413, 'svc/invalidParameter'],
  ] as const)("Hono's %i is %s, its message the detail, or none", (status, code) => {
    expect(toApiError(new HTTPException(status, { message: 'from hono' }))).toMatchObject({
      code,
      status: code === 'svc/invalidParameter' ? 400 : status,
      detail: 'from hono',
    });
    expect(toApiError(new HTTPException(status)).detail).toBeUndefined();
  });

  it.each([
    ['another HTTPException status', new HTTPException(502, { message: 'upstream said' })],
    ['an Error', new Error('database password is hunter2')],
    ['a string', 'hunter2'],
    ['undefined', undefined],
  ])('%s is svc/internalError, its message hidden', (_, thrown) => {
    const error = toApiError(thrown);
    expect([error.code, error.status]).toEqual(['svc/internalError', 500]);
    expect(error.detail).toBe('An unexpected error occurred; quote the request id to support.');
  });
});

describe('the answer and the log of an unexpected failure', () => {
  it('500 problem+json: type under DOCS_URL by slug, title, status, code, detail, instance; one error line naming it', async () => {
    const t = failing(new TypeError('database password is hunter2'), { env: { DOCS_URL: 'https://docs.example.test' } });
    const res = await t.get('/v2/species', { Authorization: DEMO.key });
    const id = res.headers.get('svc-request-id');
    const access = t.logs.find((l) => l.request_id === id && 'status' in l);
    expect(access?.trace_id, 'the access line names the trace').toMatch(/^[0-9a-f]{32}$/);
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await json(res)).toEqual({
      type: 'https://docs.example.test/problems/internal-error',
      title: 'Internal error',
      status: 500,
      code: 'svc/internalError',
      detail: 'An unexpected error occurred; quote the request id to support.',
      instance: `urn:botanical:request:${id}`,
    });
    expect(errorLines(t)).toEqual([
      expect.objectContaining({
        level: 'error',
        request_id: id,
        trace_id: access?.trace_id,
        error: 'TypeError',
        message: 'database password is hunter2',
      }),
    ]);
  });

  it('no detail, no detail member: the body of an answer without one', async () => {
    const t = failing(new ApiError('svc/notFound'));
    const res = await t.get('/v2/species', { Authorization: DEMO.key });
    const body = await json(res);
    expect([res.status, body.title, body.type]).toEqual([404, 'Resource not found', 'https://docs.botanical.example/problems/not-found']);
    expect(body).not.toHaveProperty('detail');
  });

  it('an answer thrown on purpose (404, 401, 429) leaves no error line: the operator is told of failures only', async () => {
    const t = failing(new ApiError('svc/notFound'));
    expect((await t.get('/v2/species', { Authorization: DEMO.key })).status).toBe(404);
    expect((await t.get('/v2/species', { Authorization: 'ApiKey no-such-key' })).status).toBe(401);
    expect((await t.get('/v2/nowhere', { Authorization: DEMO.key })).status).toBe(404);
    expect(errorLines(t)).toEqual([]);
  });

  it.each([
    ['an internal error thrown as an answer', () => new ApiError('svc/internalError'), {}],
    ['a body its sender stopped sending', () => new ClientGone(), {}],
    ['any failure once the client has gone', () => new Error('socket closed'), { clientGone: () => true }],
  ])('not an error line: %s (still a 500 to whoever reads it)', async (_, thrown, services) => {
    const t = failing(thrown(), { services });
    expect((await t.get('/v2/species', { Authorization: DEMO.key })).status).toBe(500);
    expect(errorLines(t)).toEqual([]);
  });
});
