/**
 * The address a request comes from (src/policies/source-address.ts), which the failed-authentication
 * budget is kept by (docs/reference/requests.md), on its own: the platform's word, else the right-most
 * `X-Forwarded-For` entry behind a trusted proxy, else the TCP peer; each address in one spelling
 * (one client, one budget), and anything that is not an address taken for none.
 */
import { describe, expect, it } from 'vitest';
import { sourceAddress } from '../../../src/policies/source-address';

describe('sourceAddress', () => {
  const rows: Array<[string, Parameters<typeof sourceAddress>, string | undefined]> = [
    ['the TCP peer', [{ tls: false, remoteAddress: '203.0.113.9' }, undefined, false], '203.0.113.9'],
    ['an IPv4-mapped peer, as IPv4', [{ tls: false, remoteAddress: '::ffff:203.0.113.9' }, undefined, false], '203.0.113.9'],
    ['X-Forwarded-For ignored without TRUST_PROXY', [{ tls: false, remoteAddress: '10.0.0.2' }, '198.51.100.1', false], '10.0.0.2'],
    ['the right-most X-Forwarded-For entry with TRUST_PROXY', [{ tls: false, remoteAddress: '10.0.0.2' }, '1.2.3.4, 198.51.100.1', true], '198.51.100.1'],
    ['an entry with a port', [{ tls: false, remoteAddress: '10.0.0.2' }, '198.51.100.1:5678', true], '198.51.100.1'],
    ['a bracketed IPv6 entry with a port, lower-cased', [{ tls: false, remoteAddress: '10.0.0.2' }, '[2001:DB8::1]:443', true], '2001:db8::1'],
    ['an entry that is no address: the peer', [{ tls: false, remoteAddress: '10.0.0.2' }, '1.2.3.4, unknown', true], '10.0.0.2'],
    [
      'the platform (CF-Connecting-IP) over everything',
      [{ tls: true, clientAddress: '2001:db8::7', remoteAddress: '10.0.0.2' }, '198.51.100.1', true],
      '2001:db8::7',
    ],
    ['nothing known', [{ tls: true }, undefined, false], undefined],
    ['the platform’s address in one spelling', [{ tls: true, clientAddress: '2001:DB8::7' }, undefined, false], '2001:db8::7'],
    ['the peer with TRUST_PROXY and no X-Forwarded-For', [{ tls: false, remoteAddress: '10.0.0.2' }, undefined, true], '10.0.0.2'],
    ['no peer, and no entry that is an address', [{ tls: false }, 'unknown', true], undefined],
  ];
  for (const [name, args, expected] of rows) it(name, () => expect(sourceAddress(...args)).toBe(expected));
});

describe('one spelling per address', () => {
  /** `raw` as the right-most `X-Forwarded-For` entry; the peer, `10.0.0.2`, when it is no address. */
  const read = (raw: string) => sourceAddress({ tls: false, remoteAddress: '10.0.0.2' }, `192.0.2.1, ${raw}`, true);

  it.each([
    ['198.51.100.1', '198.51.100.1'],
    [' 198.51.100.1 ', '198.51.100.1'],
    ['198.51.100.1:5678', '198.51.100.1'],
    ['[2001:db8::1]', '2001:db8::1'],
    ['[2001:db8::1]:8443', '2001:db8::1'],
    ['2001:DB8::2', '2001:db8::2'],
    ['::1', '::1'],
    ['::', '::'],
    ['::FFFF:198.51.100.1', '198.51.100.1'],
    ['[::ffff:198.51.100.1]:80', '198.51.100.1'],
    ['::ffff:c633:6401', '::ffff:c633:6401'],
    ['1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8'],
    ['0000:0000:0000:0000:0000:ffff:198.051.100.001', '0000:0000:0000:0000:0000:ffff:198.051.100.001'],
    // An IPv6 address ending in an IPv4 one, but not IPv4-mapped: kept whole.
    ['1::ffff:198.51.100.1', '1::ffff:198.51.100.1'],
    ['64:ff9b::198.51.100.1', '64:ff9b::198.51.100.1'],
    ['1::', '1::'],
    ['1:2:3:4:5:6::8', '1:2:3:4:5:6::8'],
    ['1:2:3:4:5:6:198.51.100.1', '1:2:3:4:5:6:198.51.100.1'],
  ])('reads %j as %j', (raw, address) => {
    expect(read(raw)).toBe(address);
  });

  it.each([
    'unknown',
    'proxy.example',
    'abc',
    ':',
    '0000:0000:0000:0000:0000:ffff:198.051.100.0001',
    '[2001:db8::1',
    '[2001:db8::1]x',
    'x[2001:db8::1]:443',
    '[2001:db8::1]:',
    '[proxy]:80',
    '198.51.100.1:80x',
    'x198.51.100.1:80',
    '198.51.100.1.5',
    '2001:db8::g',
    // Only the characters of an IPv6 address, not its shape.
    '198.51.100.1:',
    '198.51.100:80',
    '1:2:3:4:5:6:7',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7::8',
    '1::2::3',
    '1:2::3:4:5::6:7:8',
    '198.51.100.1::1',
    '12345::1',
    ':1::2',
    '1::2:',
    '1::198.51.100.1:2',
    '',
  ])('takes %j for no address (the peer instead)', (raw) => {
    expect(read(raw)).toBe('10.0.0.2');
  });
});
