import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO, json, testApp } from '../support/harness';
import { methodsSuite } from '../suites/methods.suite';

// The first request of the file builds the dataset's index and the description's validator: not on a test's clock.
// A hook that cannot fail: one that failed under a fault would skip the tests that catch it.
beforeAll(async () => void (await testApp().app.request('https://localhost/v2/species', { headers: { Authorization: DEMO.key } })));

methodsSuite(() => testApp(), ['PROPFIND', 'PURGE', 'LINK']);

describe('what a 405 tells the caller', () => {
  it.each([
    ['PROPFIND', '/v2/species', 'PROPFIND is not allowed here; use GET, HEAD or OPTIONS.', 'GET, HEAD, OPTIONS'],
    ['PUT', '/v1/species/ABBA', 'PUT is not allowed here; use GET or HEAD.', 'GET, HEAD'],
    ['GET', '/oauth/token', 'GET is not allowed here; use POST.', 'POST'],
    // A method name is cut to 20 characters in the message.
    ['ABCDEFGHIJKLMNOPQRSTUVWXYZ', '/healthz', 'ABCDEFGHIJKLMNOPQRST is not allowed here; use GET or HEAD.', 'GET, HEAD'],
  ])('%s %s: "%s"', async (method, path, detail, allow) => {
    const res = await testApp().get(path, { Authorization: DEMO.key }, { method });
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(405);
    expect(body.detail ?? body.message).toBe(detail);
    expect(res.headers.get('allow')).toBe(allow);
  });
});
