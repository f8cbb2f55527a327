/** V1_BROWNOUTS on the injected clock: v1 answers as if retired inside each interval, and only there. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_V1_HEADERS } from '../../suites/v1.suite';
import { json } from '../../suites/client';
import { diskApp } from '../../support/gateway';

const START = '2027-05-04T14:00:00Z';
const END = '2027-05-04T15:00:00Z';
const at = (iso: string, ms = 0) => Date.parse(iso) + ms;

describe('brownouts', () => {
  // A gateway of its own in each test, over the dataset on disk (the subject is v1's calendar, not the dataset).
  const gateway = () => diskApp({ env: { V1_BROWNOUTS: `${START}/PT1H, 2027-06-01T00:00:00Z/2027-06-01T00:00:01Z` }, now: START });

  it.each([
    ['the instant before', at(START, -1), 200],
    ['the start', at(START), 410],
    ['inside', at(START, 30 * 60_000), 410],
    ['the last millisecond', at(END, -1), 410],
    ['the end (exclusive)', at(END), 200],
    ['a one-second brownout', at('2027-06-01T00:00:00.500Z'), 410],
    ['after it', at('2027-06-01T00:00:01Z'), 200],
  ])('%s: %s', async (_label, now, status) => {
    const t = gateway();
    t.clock.set(now);
    for (const path of ['/v1/species?q=oak', '/api/v1/species/ABBA']) {
      const res = await t.get(path);
      const body = await json(res);
      expect(res.status, `${path}: ${JSON.stringify(body)}`).toBe(status);
      expect(res.headers.get('Deprecation')).toBe(DEFAULT_V1_HEADERS.deprecation);
      expect(res.headers.get('Sunset')).toBe(DEFAULT_V1_HEADERS.sunset);
      expect(res.headers.get('Link')).toBe(DEFAULT_V1_HEADERS.link);
      if (status === 410) {
        expect(res.headers.get('Content-Type')).toBe('application/json');
        expect(body).toEqual({ statusCode: 410, message: expect.stringContaining('/v2') });
      }
    }
    expect((await t.get('/v2/species?q=oak')).status, 'v2 is never browned out').toBe(200);
  });

  it('answers everyone, credential or not, before authentication, like retirement; the log line says brownout', async () => {
    const t = gateway();
    t.clock.set(at(START));
    for (const headers of [{}, { 'x-api-key': 'wrong' }] as Record<string, string>[]) {
      const res = await t.get('/v1/species', headers);
      expect(res.status).toBe(410);
    }
    const res = await t.get('/v1/nowhere');
    expect(res.status).toBe(410);
    const line = t.logs.findLast((l) => l.request_id === res.headers.get('Svc-Request-Id'))!;
    expect(line).toMatchObject({ status: 410, version: 'v1', flags: ['brownout'] });
  });

  it('answers in the same shape as the sunset does', async () => {
    const t = gateway();
    t.clock.set(at(START));
    const brownout = await t.get('/v1/species/ABBA');
    const sunset = diskApp({ now: '2027-07-31T00:00:00Z' });
    const retired = await sunset.get('/v1/species/ABBA');
    expect(brownout.status).toBe(retired.status);
    expect([...brownout.headers.keys()].filter((k) => k !== 'svc-request-id').sort()).toEqual(
      [...retired.headers.keys()].filter((k) => k !== 'svc-request-id').sort(),
    );
    expect(Object.keys(await json(brownout))).toEqual(Object.keys(await json(retired)));
  });
});
