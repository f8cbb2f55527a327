/**
 * Which requests `V1_COMPARE_PERCENT` compares (docs/reference/migration.md): a pure function of the request
 * id, so an operator holding an id can tell; whole and fractional percents sample their share.
 */
import { describe, expect, it } from 'vitest';
import { sampled } from '../../../src/migration/sampling';
import { expectedSampled } from '../../support/sampling';

describe('the requests compared', () => {
  it.each(['0.25', '12.5', '99.99'])('V1_COMPARE_PERCENT=%s samples that share of 100,000 random request ids', (percent) => {
    const n = 100_000;
    let hits = 0;
    let disagreements = 0;
    for (let i = 0; i < n; i++) {
      const id = crypto.randomUUID();
      const yes = sampled(id, Number(percent));
      if (yes !== expectedSampled(id, percent)) disagreements++;
      if (yes) hits++;
    }
    expect(disagreements, 'ids sampled otherwise than worked out apart').toBe(0);
    // Five standard deviations of the share of n independent draws.
    const share = Number(percent) / 100;
    const tolerance = 5 * Math.sqrt((share * (1 - share)) / n);
    expect(Math.abs(hits / n - share), `${hits} of ${n}`).toBeLessThan(tolerance);
  });

  it('none at 0, every one at 100', () => {
    for (let i = 0; i < 1000; i++) {
      const id = crypto.randomUUID();
      expect(sampled(id, 0)).toBe(false);
      expect(sampled(id, 100)).toBe(true);
    }
  });
});
