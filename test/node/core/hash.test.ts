/**
 * The hash behind ETags: its first half is 32-bit FNV-1a, checked against the published test
 * vectors (draft-eastlake-fnv, section 8); both halves are spelled as 16 lower-case hex digits.
 */
import { describe, expect, it } from 'vitest';
import { fnv64Hex, hex64 } from '../../../src/core/hash';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('the ETag hash', () => {
  it.each([
    ['', 0x811c9dc5],
    ['a', 0xe40c292c],
    ['foobar', 0xbf9cf968],
  ])('its first half of %j is FNV-1a 32 (%i)', (text, fnv1a) => {
    expect(fnv64Hex(bytes(text))[0]).toBe(fnv1a);
  });

  it('tells apart texts that differ in one byte, in order, or in length, in both halves', () => {
    const texts = ['{"id":"ABBA"}', '{"id":"ABBB"}', '{"id":"BABA"}', '{"id":"ABBA"} ', '{"id":"ABB"}'];
    const halves = texts.map((t) => fnv64Hex(bytes(t)));
    expect(new Set(halves.map(([hi]) => hi)).size).toBe(texts.length);
    expect(new Set(halves.map(([, lo]) => lo)).size).toBe(texts.length);
    for (const [hi, lo] of halves) {
      expect(hi).toBeGreaterThanOrEqual(0);
      expect(lo).toBeGreaterThanOrEqual(0);
    }
  });

  it.each([
    [0, 0, '0000000000000000'],
    [0x1, 0xabc, '0000000100000abc'],
    [0xffffffff, 0x80000000, 'ffffffff80000000'],
  ])('spells %i and %i as %s', (hi, lo, text) => {
    expect(hex64(hi, lo)).toBe(text);
  });
});
