/**
 * Conditional GET and HEAD (RFC 9110 section 13): whether a request's validators say the client's
 * copy is current, so the answer is 304 without a body.
 */

/** `If-None-Match` against a strong tag, with the weak comparison the RFC prescribes for it (13.1.2). */
function noneMatchHits(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === opaque);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const IMF_FIXDATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const RFC_850 = /^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\d{2})-([A-Z][a-z]{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const ASCTIME = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ([A-Z][a-z]{2}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

/** An HTTP-date (RFC 9110 5.6.7, all three forms) in ms since the epoch, or undefined when it is not one. */
export function parseHttpDate(value: string): number | undefined {
  let parts: [string, string, string, string, string, string] | undefined;
  let m = IMF_FIXDATE.exec(value);
  if (m) parts = [m[3]!, m[2]!, m[1]!, m[4]!, m[5]!, m[6]!];
  else if ((m = RFC_850.exec(value))) {
    // Two-digit years: the RFC's rule is "not more than 50 years in the future"; 1970-2069 serves.
    parts = [String(Number(m[3]) < 70 ? 2000 + Number(m[3]) : 1900 + Number(m[3])), m[2]!, m[1]!, m[4]!, m[5]!, m[6]!];
  } else if ((m = ASCTIME.exec(value))) parts = [m[6]!, m[1]!, m[2]!.trim(), m[3]!, m[4]!, m[5]!];
  if (!parts) return undefined;
  const [year, month, day, hh, mm, ss] = parts;
  const mon = MONTHS.indexOf(month);
  // A leap second (23:59:60, the only place one occurs) is its minute's last representable second:
  // Date would roll it into the next day, which the day check below would then refuse.
  const time = Date.UTC(Number(year), mon, Number(day), Number(hh), Number(mm), Math.min(Number(ss), 59));
  const check = new Date(time);
  // Reject impossible dates (31 Feb) rather than letting Date roll them over.
  if (mon < 0 || check.getUTCDate() !== Number(day) || Number(hh) > 23 || Number(mm) > 59 || Number(ss) > 60) return undefined;
  return time;
}

export interface Validators {
  ifNoneMatch: string | undefined;
  ifModifiedSince: string | undefined;
}

/**
 * Whether a GET or HEAD is answered 304: `If-None-Match` decides when present (13.1.2 precedence);
 * otherwise `If-Modified-Since`, ignored when it is not a valid HTTP-date, hits when the
 * representation is not newer than it (13.1.3).
 */
export function notModified(request: Validators, etag: string, lastModified: string): boolean {
  if (request.ifNoneMatch !== undefined) return noneMatchHits(request.ifNoneMatch, etag);
  if (request.ifModifiedSince === undefined) return false;
  const since = parseHttpDate(request.ifModifiedSince);
  return since !== undefined && Math.floor(Date.parse(lastModified) / 1000) * 1000 <= since;
}
