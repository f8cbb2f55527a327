/**
 * The clock's time as RFC 3339 (what `Date.prototype.toISOString` spells), for a line per
 * request: the text up to the second is spelled once per second and the milliseconds appended, so
 * a busy gateway does not build a `Date` and format it for every line (about 1.3 µs each).
 */
export function isoTimes(clock: { now(): number }): () => string {
  let second = Number.NaN;
  let prefix = '';
  let at = Number.NaN;
  let text = '';
  return () => {
    const now = Math.trunc(clock.now()); // as Date does
    if (now === at) return text;
    at = now;
    const s = Math.floor(now / 1000);
    if (s !== second) {
      second = s;
      prefix = new Date(s * 1000).toISOString().slice(0, -4); // without "000Z"
    }
    const ms = now - s * 1000;
    text = `${prefix}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z`;
    return text;
  };
}
