/**
 * A request's trace as its access line and a tracing exporter read it: a continued `traceparent`
 * keeps the caller's trace, parent and flags; a new trace is sampled; the gateway's own span is
 * drawn once; each call to a backend gets a `traceparent` of its own under the same trace; calls
 * and attempts are kept in order (docs/reference/observability.md). Random ids come from `randomHex`, whose
 * draws are checked here too: lower-case hex of the length asked, never all zero, never repeated.
 */
import { describe, expect, it } from 'vitest';
import { RequestTrace, type BackendAttempt, type BackendCall } from '../../../src/core/request-trace';
import { parseTraceparent, randomHex } from '../../../src/core/trace-context';

const CALLER = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', parentId: '00f067aa0ba902b7', flags: 0 };

describe('a request trace', () => {
  it('continues the caller trace: its trace id, its span as parent, its flags in every outgoing traceparent', () => {
    const trace = RequestTrace.start(CALLER);
    expect({ traceId: trace.traceId, parentId: trace.parentId, flags: trace.flags }).toEqual(CALLER);
    const { spanId, traceparent } = trace.outgoing();
    expect(traceparent).toBe(`00-${CALLER.traceId}-${spanId}-00`);
    expect(RequestTrace.start({ ...CALLER, flags: 1 }).outgoing().traceparent).toMatch(/-01$/);
  });

  it('starts a new sampled trace without a caller: a trace id of 32 hex digits, no parent', () => {
    const trace = RequestTrace.start();
    expect(trace.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(trace.parentId).toBeUndefined();
    expect(trace.flags).toBe(1);
    expect(parseTraceparent(trace.outgoing().traceparent)).toMatchObject({ traceId: trace.traceId, flags: 1 });
    expect(RequestTrace.start().traceId).not.toBe(trace.traceId);
  });

  it('draws the gateway span once, and a new span for each call to a backend', () => {
    const trace = RequestTrace.start(CALLER);
    const own = trace.spanId;
    expect(own).toMatch(/^[0-9a-f]{16}$/);
    expect(trace.spanId).toBe(own);
    const first = trace.outgoing();
    const second = trace.outgoing();
    expect(first.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(new Set([own, first.spanId, second.spanId, CALLER.parentId]).size).toBe(4);
    expect(parseTraceparent(first.traceparent)).toEqual({ traceId: CALLER.traceId, parentId: first.spanId, flags: 0 });
    expect(parseTraceparent(second.traceparent)).toEqual({ traceId: CALLER.traceId, parentId: second.spanId, flags: 0 });
  });

  it('keeps the calls and attempts made for it in order, none before the first', () => {
    const trace = RequestTrace.start();
    expect(trace.calls).toBeUndefined();
    expect(trace.attempts).toBeUndefined();
    const calls: BackendCall[] = [
      { backend: 'upstream', status: null, durationMs: 1000, outcome: 'timeout' },
      { backend: 'upstream', status: 200, durationMs: 12, outcome: 'ok' },
      { backend: 'legacy', status: 503, durationMs: 5, outcome: '5xx' },
    ];
    for (const call of calls) trace.noteCall(call);
    expect(trace.calls).toEqual(calls);
    const attempts: BackendAttempt[] = [1, 2].map((n) => ({
      spanId: trace.outgoing().spanId,
      backend: 'upstream',
      url: `https://backend.example/species?n=${n}`,
      startMs: n,
      durationMs: n,
      status: null,
      error: 'timeout',
    }));
    for (const attempt of attempts) trace.noteAttempt(attempt);
    expect(trace.attempts).toEqual(attempts);
  });
});

describe('random ids', () => {
  it('are lower-case hex of the bytes asked, never all zero, and not repeated across many draws', () => {
    const seen = new Set<string>();
    // More than one pool of 4,096 bytes, in sizes that do not divide it.
    for (let i = 0; i < 1500; i++) {
      for (const bytes of [16, 8, 3]) {
        const hex = randomHex(bytes);
        expect(hex).toMatch(new RegExp(`^[0-9a-f]{${bytes * 2}}$`));
        expect(hex).not.toMatch(/^0+$/);
        if (bytes > 3) {
          expect(seen.has(hex), hex).toBe(false);
          seen.add(hex);
        }
      }
    }
  });
});
