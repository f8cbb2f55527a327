import { diskApp } from '../../support/gateway';
import { conditionalSuite } from '../../suites/conditional.suite';
import { describe, expect, it } from 'vitest';
import { parseHttpDate } from '../../../src/core/conditional';

const t = diskApp();
conditionalSuite(() => t);

/**
 * HTTP-dates (RFC 9110 section 5.6.7) as `If-Modified-Since` carries them: the three forms of the
 * RFC's own example are one instant, and a two-digit year is read as 1970-2069. A representation
 * from the upstream may be older than 2000, so the century decides whether its copy is current.
 */
describe('an HTTP-date', () => {
  it.each(['Sun, 06 Nov 1994 08:49:37 GMT', 'Sunday, 06-Nov-94 08:49:37 GMT', 'Sun Nov  6 08:49:37 1994'])('%j is the RFC example instant', (text) => {
    expect(parseHttpDate(text)).toBe(Date.UTC(1994, 10, 6, 8, 49, 37));
  });

  it.each([
    ['Thursday, 01-Jan-70 00:00:00 GMT', Date.UTC(1970, 0, 1)],
    ['Friday, 31-Dec-99 23:59:59 GMT', Date.UTC(1999, 11, 31, 23, 59, 59)],
    ['Saturday, 01-Jan-00 00:00:00 GMT', Date.UTC(2000, 0, 1)],
    ['Sunday, 31-Dec-69 00:00:00 GMT', Date.UTC(2069, 11, 31)],
  ])('the two-digit year of %j is read within 1970-2069', (text, instant) => {
    expect(parseHttpDate(text)).toBe(instant);
  });

  it("a leap second is its minute's last second, not the next day", () => {
    expect(parseHttpDate('Wed, 31 Dec 2008 23:59:60 GMT')).toBe(Date.UTC(2008, 11, 31, 23, 59, 59));
    expect(parseHttpDate('Wednesday, 31-Dec-08 23:59:60 GMT')).toBe(Date.UTC(2008, 11, 31, 23, 59, 59));
    expect(parseHttpDate('Wed, 31 Dec 2008 23:59:61 GMT')).toBeUndefined();
  });
});
