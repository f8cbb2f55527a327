/**
 * The hand-made metric families read by a real prom-client registry: what `/metrics` exposes must
 * be what prom-client's own counter and histogram would expose for the same observations, bucket
 * bounds included (Prometheus buckets are `le`: an observation equal to a bound counts in it).
 */
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CounterFamily, HistogramFamily } from '../../../src/node/families';

const BOUNDS = [0.005, 0.05, 0.1, 0.5, 1];
/** Every bound exactly, a value between each pair, one below the first and one past the last. */
const OBSERVED = [...BOUNDS, 0.001, 0.01, 0.07, 0.3, 0.7, 2.5, 0.1];

/** The exposition lines of `registry`, in order. */
const exposition = async (registry: Registry) => (await registry.metrics()).trim().split('\n');

describe('metric families against prom-client', () => {
  it('a histogram exposes the buckets, sum and count prom-client’s Histogram would, an observation on a bound counted in that bound', async () => {
    const ours = new Registry();
    const family = new HistogramFamily('demo_seconds', 'Demo.', BOUNDS);
    ours.registerMetric(family as never);
    const reference = new Registry();
    const histogram = new Histogram({ name: 'demo_seconds', help: 'Demo.', buckets: BOUNDS, labelNames: ['route'], registers: [reference] });
    for (const value of OBSERVED) {
      family.observe('a', () => ({ route: 'a' }), value);
      histogram.observe({ route: 'a' }, value);
    }
    expect(await exposition(ours)).toEqual(await exposition(reference));
    // Spelled out, for the bound itself: 0.1 was observed twice, and both count under le="0.1".
    const lines = await exposition(ours);
    expect(lines).toContain('demo_seconds_bucket{le="0.05",route="a"} 4');
    expect(lines).toContain('demo_seconds_bucket{le="0.1",route="a"} 7');
  });

  it('a counter exposes per label set what prom-client’s Counter would', async () => {
    const ours = new Registry();
    const family = new CounterFamily('demo_total', 'Demo.');
    ours.registerMetric(family as never);
    const reference = new Registry();
    const counter = new Counter({ name: 'demo_total', help: 'Demo.', labelNames: ['status'], registers: [reference] });
    for (const [status, by] of [
      [200, 1],
      [404, 2],
      [200, 3],
    ] as const) {
      family.add(String(status), () => ({ status }), by);
      counter.inc({ status }, by);
    }
    expect(await exposition(ours)).toEqual(await exposition(reference));
  });
});
