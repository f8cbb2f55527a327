/**
 * Which `PUBLIC_HOSTS` entries name a host a request can name (src/core/host-name.ts), on their own:
 * a DNS name, an IPv4 address or a bracketed IPv6 literal, then a port, if any, from 1 to 65535.
 * Start-up's message for the others is in `config.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import { isHostEntry } from '../../../src/core/host-name';

describe('isHostEntry', () => {
  it.each(['api.example.com', 'api.example.com:1', 'api.example.com:65535', '127.0.0.1:8787', '[::1]:443', '[2001:db8::1]', 'localhost'])(
    'takes %j',
    (entry) => {
      expect(isHostEntry(entry)).toBe(true);
    },
  );

  it.each([
    'api.example.com:0',
    'api.example.com:65536',
    'api.example.com:99999',
    '[::1]:65536',
    '[2001:db8::1]:0',
    'api.example.com:',
    'https://api.example.com',
    'api.example.com/v2',
    '*.example.com',
    '',
  ])('refuses %j', (entry) => {
    expect(isHostEntry(entry)).toBe(false);
  });
});
