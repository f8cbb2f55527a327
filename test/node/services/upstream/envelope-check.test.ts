/**
 * The upstream modules' own contracts, in process and without a backend: what the envelope check
 * accepts and how it words each refusal (the words the log line of a 502 carries), how
 * `Cache-Control` and `Retry-After` are read, the bounded body reader and the retry pause, the
 * breaker's transitions and the shared resilience discipline around an attempt.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RequestTrace } from '../../../../src/core/request-trace';
import { ManualClock } from '../../../../src/services/clock';
import { CircuitBreaker, type BreakerState } from '../../../../src/services/upstream/breaker';
import { collectionOf, detailOf, MalformedUpstream } from '../../../../src/services/upstream/envelope-check';
import { freshnessMs, retryAfterSeconds } from '../../../../src/services/upstream/freshness';
import { pause, readBounded } from '../../../../src/services/upstream/io';
import { failure, Resilience, unavailable } from '../../../../src/services/upstream/resilience';
import { fakePage, recordingMetrics, TEST_TUNING } from '../../../support/upstream';

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** The refusal `validate` throws for `body`, as the log line names it. */
function refusal(validate: (body: unknown) => unknown, body: unknown): string {
  try {
    validate(body);
  } catch (err) {
    expect(err, String(err)).toBeInstanceOf(MalformedUpstream);
    expect((err as Error).name).toBe('MalformedUpstream');
    return (err as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(body)}`);
}

const page = (edit: (p: any) => void = () => {}, n = 1, total = 45) => {
  const p = fakePage(n, total) as any;
  edit(p);
  return p;
};

describe('collectionOf: the canonical page envelope, strictly', () => {
  it.each<[string, unknown, string]>([
    ['a body that is null', null, 'body is not a {data: [], meta: {}} envelope'],
    ['a body that is an array', [page()], 'body is not a {data: [], meta: {}} envelope'],
    ['data that is not an array', page((p) => (p.data = { 0: p.data[0] })), 'body is not a {data: [], meta: {}} envelope'],
    ['meta that is an array', page((p) => (p.meta = [p.meta])), 'body is not a {data: [], meta: {}} envelope'],
    ['meta that is null', page((p) => (p.meta = null)), 'body is not a {data: [], meta: {}} envelope'],
    ['meta that is a string', page((p) => (p.meta = '45')), 'body is not a {data: [], meta: {}} envelope'],
    ['a total of 44.5', page((p) => (p.meta.total = 44.5)), 'meta.total is not a whole number'],
    ['a total that is a string', page((p) => (p.meta.total = '45')), 'meta.total is not a whole number'],
    ['a negative total', page((p) => (p.meta.total = -1)), 'meta.total is not a whole number'],
    ['another page size', page((p) => (p.meta.per_page = 10)), 'meta.per_page is not 20'],
    ['another page', page(() => {}, 2), 'meta.current_page is not the requested page 1'],
    ['a record short', page((p) => p.data.pop()), 'data holds 19 records where meta.total implies 20'],
    ['a record that is null', page((p) => (p.data[3] = null)), 'data[3] is not a record with a string id'],
    ['a record that is an array', page((p) => (p.data[3] = [p.data[3]])), 'data[3] is not a record with a string id'],
    ['a record with a numeric id', page((p) => (p.data[4].id = 7)), 'data[4] is not a record with a string id'],
    ['a record with an empty id', page((p) => (p.data[5].id = '')), 'data[5] is not a record with a string id'],
  ])('refuses %s', (_name, body, message) => {
    expect(refusal(collectionOf(1), body)).toBe(message);
  });

  it('takes a valid page, and an empty page past the last, with only data and the total', () => {
    expect(collectionOf(3)(page(() => {}, 3))).toEqual({ data: fakePage(3).data, meta: { total: 45 } });
    expect(collectionOf(4)(page(() => {}, 4))).toEqual({ data: [], meta: { total: 45 } });
    expect(collectionOf(1)(page(() => {}, 1, 0))).toEqual({ data: [], meta: { total: 0 } });
  });
});

describe('detailOf: one record with the requested id and an RFC 3339 last_modified', () => {
  const detail = (edit: (d: any) => void = () => {}) => {
    const d: any = { data: { id: 'SP1', slug: 'sp-1' }, meta: { last_modified: '2026-03-18T00:00:00Z', images_count: 2 } };
    edit(d);
    return d;
  };

  it.each<[string, unknown, string]>([
    ['a body that is null', null, 'body is not a {data: {}, meta: {}} envelope'],
    ['a body that is an array', [detail()], 'body is not a {data: {}, meta: {}} envelope'],
    ['a body without meta', detail((d) => delete d.meta), 'body is not a {data: {}, meta: {}} envelope'],
    ['data that is an array', detail((d) => (d.data = [d.data])), 'data is not a record with a string id'],
    ['data without an id', detail((d) => delete d.data.id), 'data is not a record with a string id'],
    ['another id', detail((d) => (d.data.id = 'SP2')), 'data.id is not the requested id'],
    ['no last_modified', detail((d) => delete d.meta.last_modified), 'meta.last_modified is not an RFC 3339 instant'],
    ['last_modified in milliseconds', detail((d) => (d.meta.last_modified = 1773792000000)), 'meta.last_modified is not an RFC 3339 instant'],
    ['a date without a time', detail((d) => (d.meta.last_modified = '2026-03-18')), 'meta.last_modified is not an RFC 3339 instant'],
    ['an expanded year', detail((d) => (d.meta.last_modified = '+002026-03-18T00:00:00Z')), 'meta.last_modified is not an RFC 3339 instant'],
    ['an impossible instant', detail((d) => (d.meta.last_modified = '2026-13-45T00:00:00Z')), 'meta.last_modified is not an RFC 3339 instant'],
    ['a negative count', detail((d) => (d.meta.synonyms_count = -1)), 'meta.synonyms_count is not a whole number'],
    ['a count that is a string', detail((d) => (d.meta.sources_count = '3')), 'meta.sources_count is not a whole number'],
  ])('refuses %s', (_name, body, message) => {
    expect(refusal(detailOf('SP1'), body)).toBe(message);
  });

  it('keeps only the meta fields a detail may carry, in the upstream order', () => {
    const body = detail((d) => (d.meta = { images_count: 2, cache: 'warm', last_modified: '2026-03-18T00:00:00Z', synonyms_count: 0, links: {} }));
    const found = detailOf('SP1')(body);
    expect(found.data).toEqual({ id: 'SP1', slug: 'sp-1' });
    expect(Object.entries(found.meta)).toEqual([
      ['images_count', 2],
      ['last_modified', '2026-03-18T00:00:00Z'],
      ['synonyms_count', 0],
    ]);
  });
});

describe('freshnessMs and retryAfterSeconds', () => {
  it.each<[string, number | undefined]>([
    ['max-age=12', 12_000],
    ['max-age="12"', 12_000],
    ['public, MAX-AGE = 7', 7_000],
    ['max-age=1"2', 60_000],
    ['max-age=x5', 60_000],
    ['max-age=5x', 60_000],
    ['max-age=-5', 60_000],
    ['max-age', 60_000],
    ['public', 60_000],
    ['', 60_000],
    ['s-maxage=3, max-age=9', 3_000],
    ['no-store, max-age=9', undefined],
  ])('Cache-Control %j: %s ms', (header, ttl) => {
    expect(freshnessMs(header, 60_000)).toBe(ttl);
  });

  it('reads Retry-After as delay-seconds or an HTTP-date from now, whole seconds, never negative', () => {
    const now = Date.parse('2026-11-21T12:00:00Z');
    expect(retryAfterSeconds(null, now)).toBeUndefined();
    expect(retryAfterSeconds(' 7 ', now)).toBe(7);
    expect(retryAfterSeconds('120', now)).toBe(120);
    expect(retryAfterSeconds('Sat, 21 Nov 2026 12:00:30 GMT', now)).toBe(30);
    expect(retryAfterSeconds('Sat, 21 Nov 2026 12:00:30 GMT', now + 29_500), 'rounded up').toBe(1);
    expect(retryAfterSeconds('Sat, 21 Nov 2026 11:59:00 GMT', now), 'a date past').toBe(0);
    for (const invalid of ['soon', 'x7', '7x']) expect(retryAfterSeconds(invalid, now), invalid).toBeUndefined();
  });
});

describe('readBounded and pause', () => {
  /** A response whose body arrives in the given pieces. */
  const streamed = (pieces: string[], headers: Record<string, string> = {}) =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (const piece of pieces) controller.enqueue(new TextEncoder().encode(piece));
          controller.close();
        },
      }),
      { headers },
    );

  it('joins a body that arrives in pieces, and reads a missing body as empty', async () => {
    expect(await readBounded(streamed(['{"data":', '[1,', '2]}']), 100)).toBe('{"data":[1,2]}');
    expect(await readBounded(new Response(null), 100)).toBe('');
  });

  it('takes a body of exactly the bound, refuses one byte more, announced or streamed', async () => {
    expect(await readBounded(streamed(['12345', '67890']), 10)).toBe('1234567890');
    expect(await readBounded(streamed(['1234567890'], { 'Content-Length': '10' }), 10)).toBe('1234567890');
    await expect(readBounded(streamed(['12345', '678901']), 10)).rejects.toThrow(new MalformedUpstream('body larger than 10 bytes'));
    // Announced: refused before a byte is read.
    await expect(readBounded(streamed(['1'], { 'Content-Length': '11' }), 10)).rejects.toThrow(new MalformedUpstream('body larger than 10 bytes'));
  });

  it('pause waits its time, or ends when the deadline passes, leaving no timer behind', async () => {
    vi.useFakeTimers();
    const deadline = new AbortController();
    let paused = false;
    void pause(50, deadline.signal).then(() => (paused = true));
    await vi.advanceTimersByTimeAsync(49);
    expect(paused).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(paused).toBe(true);

    let cut = false;
    void pause(3_600_000, deadline.signal).then(() => (cut = true));
    deadline.abort();
    await vi.advanceTimersByTimeAsync(0);
    expect(cut, 'the deadline ends the pause').toBe(true);
    expect(vi.getTimerCount(), 'its timer cleared').toBe(0);
  });
});

describe('CircuitBreaker', () => {
  it('reports each transition once: open at the threshold, closed by the first success after', () => {
    const clock = new ManualClock(0);
    const changes: BreakerState[] = [];
    const breaker = new CircuitBreaker(2, 100, clock, (s) => changes.push(s));
    expect(breaker.retryAfterMs(), 'closed: no wait').toBe(0);
    breaker.success();
    breaker.failure();
    expect(changes, 'successes while closed, one failure: nothing').toEqual([]);
    breaker.failure();
    expect(changes).toEqual(['open']);
    clock.advance(100);
    expect(breaker.allow()).toBe(true);
    breaker.success();
    breaker.success();
    expect(changes).toEqual(['open', 'closed']);
  });

  it('a call that fails while the breaker is already open does not restart the cool-down', () => {
    const clock = new ManualClock(0);
    const changes: BreakerState[] = [];
    const breaker = new CircuitBreaker(1, 100, clock, (s) => changes.push(s));
    breaker.failure();
    clock.advance(40);
    // A call let through before the breaker opened ends now, failed.
    breaker.failure();
    expect(breaker.retryAfterMs()).toBe(60);
    expect(changes).toEqual(['open']);
  });
});

describe('Resilience: the discipline around an attempt', () => {
  const resilience = (tuning = {}) =>
    new Resilience({
      name: 'upstream',
      backend: 'upstream',
      metrics: recordingMetrics(),
      credentialVariable: 'UPSTREAM_AUTHORIZATION',
      tuning: { ...TEST_TUNING, ...tuning },
      clock: new ManualClock(0),
      log: () => {},
    });
  const ctx = (trace: RequestTrace) => ({ requestId: 'r1', trace, path: '/v2/species', url: 'http://backend.test/v2/species' });

  it('an attempt that throws fails the call with its error, noted on the trace', async () => {
    const trace = RequestTrace.start();
    const bug = new TypeError('attempt broke');
    await expect(resilience().call(() => Promise.reject(bug), ctx(trace), 1)).rejects.toBe(bug);
    expect(trace.attempts?.map((a) => [a.url, a.status, a.error])).toEqual([['http://backend.test/v2/species', null, 'TypeError: attempt broke']]);
    expect(trace.calls?.map((c) => [c.status, c.outcome])).toEqual([[null, 'refused']]);
  });

  it('retries after a random pause of up to 50 ms', async () => {
    vi.useFakeTimers();
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    let attempts = 0;
    const call = resilience().call(
      async (_deadline, sent) => {
        attempts++;
        sent.status = attempts === 1 ? 503 : 200;
        return attempts === 1 ? failure(unavailable(), 'answered 503', { retryable: true, outcome: '5xx' }) : 'answer';
      },
      ctx(RequestTrace.start()),
      1,
    );
    await vi.advanceTimersByTimeAsync(24);
    expect(attempts, 'within the pause').toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(attempts).toBe(2);
    expect(await call).toBe('answer');
  });
});
