/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): reading an incoming `traceparent` and
 * writing the ones the gateway's calls to its backends carry. Runtime-neutral: WebCrypto only.
 */

/** The parts of a `traceparent` header. */
export interface TraceParent {
  /** 32 lower-case hex digits, not all zero. */
  traceId: string;
  /** 16 lower-case hex digits, not all zero: the caller's span. */
  parentId: string;
  /** The trace flags (bit 0: sampled). */
  flags: number;
}

const LOWER_HEX = /^[0-9a-f]+$/;
const ALL_ZERO = /^0+$/;
/** Length of a version-00 `traceparent`: `00-` 32 hex `-` 16 hex `-` 2 hex. */
const LENGTH = 55;
/** The only flag version 00 defines; the others are reserved and are not passed on. */
const SAMPLED = 0x01;

/**
 * The parts of a valid `traceparent`, or undefined. Version 00 must be exactly 55 characters;
 * a later version (not `ff`) is read as version 00 when its first 55 characters are, and followed
 * by nothing or by `-` (the spec's rule for versions a parser does not know). Upper-case hex, an
 * all-zero trace or parent id, or two headers joined by a comma are invalid: the request then
 * starts a trace of its own.
 */
export function parseTraceparent(value: string | undefined): TraceParent | undefined {
  if (value === undefined || value.length < LENGTH) return undefined;
  const version = value.slice(0, 2);
  if (!LOWER_HEX.test(version) || version === 'ff') return undefined;
  if (version === '00' ? value.length !== LENGTH : value.length > LENGTH && value[LENGTH] !== '-') return undefined;
  if (value[2] !== '-' || value[35] !== '-' || value[52] !== '-') return undefined;
  const traceId = value.slice(3, 35);
  const parentId = value.slice(36, 52);
  const flags = value.slice(53, 55);
  if (!LOWER_HEX.test(traceId) || !LOWER_HEX.test(parentId) || !LOWER_HEX.test(flags)) return undefined;
  if (ALL_ZERO.test(traceId) || ALL_ZERO.test(parentId)) return undefined;
  return { traceId, parentId, flags: Number.parseInt(flags, 16) };
}

/** A version-00 `traceparent`. */
export function formatTraceparent(traceId: string, spanId: string, flags: number): string {
  return `00-${traceId}-${spanId}-${(flags & SAMPLED).toString(16).padStart(2, '0')}`;
}

/** The ASCII codes of the lower-case hex digits 0-f. */
const DIGITS = new TextEncoder().encode('0123456789abcdef');
/** Random bytes drawn in blocks: one WebCrypto call serves many ids, not one per id. */
const POOL_BYTES = 4096;
const ascii = new TextDecoder();
/** The pool's bytes spelled as hex, one flat string: an id is a slice of it. */
let pool = '';
let used = POOL_BYTES;

/** A new pool: random bytes, spelled in one pass and decoded as one string. */
function refill(): void {
  const bytes = crypto.getRandomValues(new Uint8Array(POOL_BYTES));
  const digits = new Uint8Array(POOL_BYTES * 2);
  for (let i = 0; i < POOL_BYTES; i++) {
    digits[2 * i] = DIGITS[bytes[i]! >> 4]!;
    digits[2 * i + 1] = DIGITS[bytes[i]! & 0xf]!;
  }
  pool = ascii.decode(digits);
  used = 0;
}

/**
 * `bytes` random bytes as lower-case hex, never all zero (the spec forbids such ids). The pool is
 * filled on first use, never at start-up: a Workers isolate may not draw random values in its
 * global scope. An id is a slice of the pool's hex, not a string joined digit by digit, which
 * had to be flattened again when the access line was written.
 */
export function randomHex(bytes: number): string {
  if (used + bytes > POOL_BYTES) refill();
  const hex = pool.slice(2 * used, 2 * (used + bytes));
  used += bytes;
  return ALL_ZERO.test(hex) ? randomHex(bytes) : hex;
}

/** A new trace id: 16 random bytes from the pool. */
export const newTraceId = (): string => randomHex(16);

/** A new span id (8 random bytes). */
export const newSpanId = (): string => randomHex(8);
