/**
 * How presented secrets are checked: the SHA-256 digest the credential documents store (lower-case
 * hex, 64 digits, the same as `sha256sum` prints), and the comparison of two digests, which must
 * tell apart any two different texts and never equate texts of different lengths.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hex, timingSafeEqual } from '../../../src/core/crypto';

describe('sha256Hex', () => {
  it.each([
    // FIPS 180-2's vectors: the empty text and "abc" (whose digest holds bytes below 0x10: "01", "03").
    ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
  ])('digests %j as the published vector', async (text, digest) => {
    expect(await sha256Hex(text)).toBe(digest);
  });

  it.each(['demo-client-secret', 'demo-client-secret\n', 'sapin baumier é ü 𝄞', 'x'.repeat(70)])('digests %j as UTF-8, as sha256sum does', async (text) => {
    expect(await sha256Hex(text)).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
  });
});

describe('timingSafeEqual', () => {
  const digest = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';

  it('holds two equal texts equal', () => {
    expect(timingSafeEqual(digest, `${digest}`)).toBe(true);
    expect(timingSafeEqual('', '')).toBe(true);
  });

  it.each([
    ['the first character', `0${digest.slice(1)}`],
    ['a middle character', `${digest.slice(0, 31)}0${digest.slice(32)}`],
    ['the last character', `${digest.slice(0, 63)}0`],
    ['every character', 'f'.repeat(64)],
  ])('tells apart texts that differ in %s', (_name, other) => {
    expect(timingSafeEqual(digest, other)).toBe(false);
    expect(timingSafeEqual(other, digest)).toBe(false);
  });

  it('never equates texts of different lengths, a prefix included', () => {
    expect(timingSafeEqual(digest, digest.slice(0, 63))).toBe(false);
    expect(timingSafeEqual(digest.slice(0, 63), digest)).toBe(false);
    expect(timingSafeEqual('', digest)).toBe(false);
  });
});
