import { describe, expect, it } from 'vitest';
import { isoTimes } from '../../../src/core/iso-time';

/** A clock that reads the instants of a list in turn. */
function reading(instants: number[]) {
  let k = 0;
  return { now: () => instants[k++]! };
}

describe('the access line time', () => {
  it('spells every instant as toISOString does, across seconds, minutes, years and both signs', () => {
    const instants = [
      Date.UTC(2026, 10, 26, 23, 59, 59, 999),
      Date.UTC(2026, 10, 27, 0, 0, 0, 0),
      Date.UTC(2026, 10, 27, 0, 0, 0, 7),
      Date.UTC(2026, 10, 27, 0, 0, 0, 7), // the same millisecond twice
      Date.UTC(2026, 10, 27, 0, 0, 0, 42),
      Date.UTC(2026, 10, 27, 0, 0, 0, 9), // either side of two and of three digits of milliseconds
      Date.UTC(2026, 10, 27, 0, 0, 0, 10),
      Date.UTC(2026, 10, 27, 0, 0, 0, 99),
      Date.UTC(2026, 10, 27, 0, 0, 0, 100),
      Date.UTC(2026, 10, 27, 0, 0, 1, 100),
      Date.UTC(2026, 10, 27, 0, 0, 0, 999), // back in time: the second spelled again
      0,
      -1,
      -999,
      -1000,
      -1001,
      1_234.9, // a fractional clock: truncated, as Date does
      -1_234.9,
      Date.UTC(10_000, 0, 1, 0, 0, 0, 5), // six-digit years
      Date.UTC(-1, 0, 1, 0, 0, 0, 5),
    ];
    // And a walk through a few seconds a few milliseconds at a time, as under load.
    for (let t = Date.UTC(2026, 7, 31, 23, 59, 58, 990); t < Date.UTC(2026, 8, 1, 0, 0, 1, 20); t += 7) instants.push(t);
    const time = isoTimes(reading(instants));
    for (const instant of instants) expect(time()).toBe(new Date(instant).toISOString());
  });
});
