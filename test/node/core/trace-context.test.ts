/**
 * Reading and writing a `traceparent` (W3C Trace Context, src/core/trace-context.ts) on their own,
 * without a gateway: what is continued, what is refused (the request then starts a trace of its own),
 * which flags are passed on, and that a random id is never all zero. What the gateway does with them
 * is in `trace-context.test.ts`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { formatTraceparent, parseTraceparent, randomHex } from '../../../src/core/trace-context';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';
const INCOMING = `00-${TRACE}-${PARENT}-01`;

describe('parsing traceparent (W3C Trace Context, version 00)', () => {
  it.each([
    [INCOMING, { traceId: TRACE, parentId: PARENT, flags: 1 }],
    [`00-${TRACE}-${PARENT}-00`, { traceId: TRACE, parentId: PARENT, flags: 0 }],
    // A later version is read as 00 when its first fields are, with more after a dash.
    [`01-${TRACE}-${PARENT}-01`, { traceId: TRACE, parentId: PARENT, flags: 1 }],
    [`cc-${TRACE}-${PARENT}-09-what-comes-later`, { traceId: TRACE, parentId: PARENT, flags: 9 }],
  ])('reads %s', (header, parts) => {
    expect(parseTraceparent(header)).toEqual(parts);
  });

  it.each([
    ['upper-case hex', `00-${TRACE.toUpperCase()}-${PARENT}-01`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${PARENT}-01`],
    ['an all-zero parent id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['version ff', `ff-${TRACE}-${PARENT}-01`],
    ['version 00 with more after it', `${INCOMING}-extra`],
    ['a later version with more not after a dash', `01-${TRACE}-${PARENT}-01x`],
    ['a short trace id', `00-${TRACE.slice(1)}-${PARENT}-01`],
    ['a non-hex parent id', `00-${TRACE}-${PARENT.slice(1)}g-01`],
    ['wrong separators', `00_${TRACE}_${PARENT}_01`],
    ['a wrong separator after the version', `00_${TRACE}-${PARENT}-01`],
    ['a wrong separator after the trace id', `00-${TRACE}_${PARENT}-01`],
    ['a wrong separator after the parent id', `00-${TRACE}-${PARENT}_01`],
    ['a non-hex version', `0g-${TRACE}-${PARENT}-01`],
    ['non-hex flags', `00-${TRACE}-${PARENT}-0g`],
    ['a later version of 54 characters', `01-${TRACE}-${PARENT}-1`],
    ['two headers joined', `${INCOMING}, 00-${TRACE}-${PARENT}-00`],
    ['a one-digit flag', `00-${TRACE}-${PARENT}-1`],
    ['nothing', ''],
  ])('refuses %s', (_name, header) => {
    expect(parseTraceparent(header)).toBeUndefined();
  });

  it('reads no header as no trace to continue', () => {
    expect(parseTraceparent(undefined)).toBeUndefined();
  });
});

describe('writing traceparent', () => {
  it.each([
    [1, '01'],
    [0, '00'],
    [9, '01'],
    [2, '00'],
    [0xff, '01'],
  ])('passes on only the sampled bit of flags %i, as %s', (flags, written) => {
    expect(formatTraceparent(TRACE, PARENT, flags)).toBe(`00-${TRACE}-${PARENT}-${written}`);
  });
});

describe('random ids', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('draws again when the random bytes are all zero, which the spec forbids as an id', () => {
    const real = crypto.getRandomValues.bind(crypto);
    let draws = 0;
    const draw = (array: Uint8Array<ArrayBuffer>) => {
      draws++;
      // The first pool drawn is all zero; the next ones are random.
      return draws === 1 ? array : real(array);
    };
    vi.spyOn(crypto, 'getRandomValues').mockImplementation(draw as typeof crypto.getRandomValues);
    // A whole pool's worth needs a fresh pool whatever was used before.
    const hex = randomHex(4096);
    expect(draws).toBe(2);
    expect(hex).toMatch(/^[0-9a-f]{8192}$/);
    expect(hex).not.toMatch(/^0+$/);
  });

  it('spells each random byte as two lower-case hex digits, high digit first, in the order drawn', () => {
    const byte = (i: number) => (i * 7 + 3) & 0xff;
    const fill = (array: Uint8Array<ArrayBuffer>) => {
      for (let i = 0; i < array.length; i++) array[i] = byte(i);
      return array;
    };
    vi.spyOn(crypto, 'getRandomValues').mockImplementation(fill as typeof crypto.getRandomValues);
    randomHex(4096);
    // The pool is used up: these are the next pool's bytes, from its first.
    const ids = [randomHex(16), randomHex(8), randomHex(16)];
    const spelled = Array.from({ length: 40 }, (_, i) => byte(i).toString(16).padStart(2, '0')).join('');
    expect(ids).toEqual([spelled.slice(0, 32), spelled.slice(32, 48), spelled.slice(48, 80)]);
  });
});
