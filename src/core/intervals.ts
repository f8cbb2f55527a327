/** A half-open span of time, `[start, end)`, in epoch milliseconds. */
export interface Interval {
  start: number;
  end: number;
}

/** The shape of an RFC 3339 date-time with an explicit offset (`Z` or `+hh:mm`), whether or not the date is real. */
export const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:Z|[+-](\d{2}):(\d{2}))$/i;
/** Weeks, or days and clock time; years and months are left out because their length varies. */
const DURATION = /^P(?:(\d+)W|(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?)$/i;

/**
 * An RFC 3339 date-time with an explicit offset, as epoch milliseconds; an impossible date
 * (`2027-02-30`, `24:00:00`, an offset past `23:59`) is refused. `Date.parse` alone would roll a
 * 30 February over into March and read a date without an offset in the machine's time zone.
 */
export function parseInstant(text: string): number | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, , oh = 0, om = 0] = m.map((v) => (v === undefined ? undefined : Number(v)));
  const calendar = new Date(Date.UTC(y!, mo! - 1, d!, h!, mi!, s!));
  if (calendar.getUTCMonth() !== mo! - 1 || calendar.getUTCDate() !== d! || h! > 23 || mi! > 59 || s! > 59 || oh > 23 || om > 59) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

function parseDuration(text: string): number | undefined {
  const m = DURATION.exec(text);
  if (!m || text.toUpperCase() === 'P' || /T$/i.test(text)) return undefined;
  const [, weeks, days, hours, minutes, seconds] = m.map((v) => (v === undefined ? 0 : Number(v)));
  const ms = ((((weeks! * 7 + days!) * 24 + hours!) * 60 + minutes!) * 60 + seconds!) * 1000;
  return ms > 0 ? ms : undefined;
}

/**
 * One ISO 8601 interval: `start/end`, `start/duration` (`2027-05-04T14:00:00Z/PT1H`) or
 * `duration/end`. Throws a sentence naming the part that is wrong.
 */
export function parseInterval(text: string): Interval {
  const parts = text.split('/');
  if (parts.length !== 2) throw new Error(`holds ${JSON.stringify(text)}, not an interval of the form start/end or start/duration`);
  const [a, b] = parts as [string, string];
  const startAt = parseInstant(a);
  const endAt = parseInstant(b);
  let interval: Interval | undefined;
  if (startAt !== undefined && endAt !== undefined) interval = { start: startAt, end: endAt };
  else if (startAt !== undefined && parseDuration(b) !== undefined) interval = { start: startAt, end: startAt + parseDuration(b)! };
  else if (endAt !== undefined && parseDuration(a) !== undefined) interval = { start: endAt - parseDuration(a)!, end: endAt };
  if (!interval) {
    throw new Error(`holds ${JSON.stringify(text)}: each side must be an RFC 3339 date-time with an offset, or a duration such as PT1H (one side at most)`);
  }
  if (interval.end <= interval.start) throw new Error(`holds ${JSON.stringify(text)}, which ends before it starts`);
  return interval;
}

/** A comma-separated list of intervals (`V1_BROWNOUTS`), in start order; empty text is none. */
export function parseIntervals(text: string): Interval[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0)
    .map(parseInterval)
    .sort((x, y) => x.start - y.start);
}

/** The interval `now` falls in, if any. */
export function intervalAt(intervals: readonly Interval[], now: number): Interval | undefined {
  return intervals.find((i) => now >= i.start && now < i.end);
}
