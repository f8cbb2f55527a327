/**
 * A 64-bit FNV-1a hash as two u32 halves (two 32-bit FNV-1a-style runs with different bases and primes).
 * Not cryptographic: it tells representations apart for ETags, computed once per record at build time.
 */
export function fnv64Hex(bytes: Uint8Array): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < bytes.length; i++) {
    a = Math.imul(a ^ bytes[i]!, 0x01000193) >>> 0;
    b = Math.imul(b ^ bytes[i]!, 0x5bd1e995) >>> 0;
  }
  return [a, b];
}

/** The two halves as 16 hex digits. */
export const hex64 = (hi: number, lo: number) => hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0');
