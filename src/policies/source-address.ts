import type { ConnectionInfo } from '../services/connection';

/**
 * The address a request comes from, for counting failed authentications (docs/reference/requests.md):
 * the platform's word where there is one (Workers: `CF-Connecting-IP`); else, behind a trusted
 * proxy, the right-most `X-Forwarded-For` entry (the one our own proxy appended: the entries
 * left of it are whatever the client sent); else the TCP peer. Undefined where none is known
 * (in-process tests, a worker reached without Cloudflare in front).
 */
export function sourceAddress(connection: ConnectionInfo, forwardedFor: string | undefined, trustProxy: boolean): string | undefined {
  if (connection.clientAddress !== undefined) return normalised(connection.clientAddress);
  if (trustProxy && forwardedFor !== undefined) {
    const appended = normalised(forwardedFor.split(',').pop()!);
    if (appended !== undefined) return appended;
  }
  return connection.remoteAddress === undefined ? undefined : normalised(connection.remoteAddress);
}

const PLAIN_IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/**
 * One spelling per address, so one client is one bucket: lower case, without a port
 * (`203.0.113.9:5678`, `[2001:db8::1]:443`, as some proxies write it) and without the
 * IPv4-mapped prefix Node reports for IPv4 clients of a dual-stack socket. Anything that is not an
 * address (`unknown`, a name) is no address.
 */
function normalised(raw: string): string | undefined {
  // What a socket reports for an IPv4 peer, the usual case, is already in its one spelling.
  if (PLAIN_IPV4.test(raw)) return raw;
  let address = raw.trim().toLowerCase();
  const bracketed = /^\[([0-9a-f:.]+)\](?::\d+)?$/.exec(address);
  if (bracketed) address = bracketed[1]!;
  else if (/^\d{1,3}(?:\.\d{1,3}){3}:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(':'));
  address = address.replace(/^::ffff:(?=\d{1,3}(?:\.\d{1,3}){3}$)/, '');
  return PLAIN_IPV4.test(address) || isIpv6(address) ? address : undefined;
}

const HEX_GROUP = /^[0-9a-f]{1,4}$/;

/**
 * Whether `address` (lower case) is an IPv6 address as RFC 4291 section 2.2 writes one: eight
 * groups of one to four hex digits, the last two of which may be a dotted IPv4 address, with at
 * most one `::` standing for one or more groups of zeros.
 */
function isIpv6(address: string): boolean {
  const halves = address.split('::');
  if (halves.length > 2) return false;
  let groups = 0;
  for (let h = 0; h < halves.length; h++) {
    if (halves[h] === '') continue;
    const parts = halves[h]!.split(':');
    for (let i = 0; i < parts.length; i++) {
      const last = h === halves.length - 1 && i === parts.length - 1;
      if (last && PLAIN_IPV4.test(parts[i]!)) groups += 2;
      else if (HEX_GROUP.test(parts[i]!)) groups += 1;
      else return false;
    }
  }
  return halves.length === 2 ? groups <= 7 : groups === 8;
}
