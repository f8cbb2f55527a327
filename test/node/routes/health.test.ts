/** `/healthz` as a load balancer sees it: no credential, never cached, other methods refused. */
import { describe, expect, it } from 'vitest';
import { json } from '../../suites/client';
import { diskApp } from '../../support/gateway';

describe('GET /healthz', { timeout: 120_000 }, () => {
  it('answers 200 {"status":"ok"} without a credential, not to be stored', async () => {
    const res = await diskApp().get('/healthz', {});
    expect(res.status).toBe(200);
    expect(res.headers.get('Cache-Control')).toBe('no-store');
    expect(await json(res)).toEqual({ status: 'ok' });
  });

  it('answers another method with 405 and Allow', async () => {
    const res = await diskApp().get('/healthz', {}, { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('Allow')).toMatch(/GET/);
  });
});
