/**
 * Counter and histogram families for what is recorded on every request, as plain numbers that a
 * prom-client registry reads when scraped (it takes any metric with `name`, `help`, `type` and
 * `get()`). prom-client's own `inc`/`observe` check and hash the labels on every call: 1-2 µs
 * a request, several percent of a small page. Here a request costs one string key and one map
 * lookup; the labels object is made once per label set.
 */

export type Labels = Record<string, string | number>;

export interface Value {
  labels: Labels;
  value: number;
  metricName?: string;
}

/** What prom-client's registry reads of a metric. */
export interface Family {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'histogram';
  readonly aggregator: 'sum';
  get(): { name: string; help: string; type: string; aggregator: 'sum'; values: Value[] };
}

/** The series `key` names in `all`, made on first use (labels are built once per label set). */
function seriesOf<T>(all: Map<string, T>, key: string, make: () => T): T {
  let s = all.get(key);
  if (s === undefined) all.set(key, (s = make()));
  return s;
}

export class CounterFamily implements Family {
  readonly type = 'counter' as const;
  readonly aggregator = 'sum' as const;
  private readonly all = new Map<string, Value>();

  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  /** Adds `by` to the series `key` names; `labels` is called only for a key not seen before. */
  add(key: string, labels: () => Labels, by = 1): void {
    this.series(key, labels).value += by;
  }

  /** The series `key` names, made with `labels` on first use: a caller may keep it and add to its `value`. */
  series(key: string, labels: () => Labels): Value {
    return seriesOf(this.all, key, () => ({ labels: labels(), value: 0 }));
  }

  get() {
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: [...this.all.values()].map((s) => ({ ...s })) };
  }
}

export interface Buckets {
  labels: Labels;
  /** Observations per bucket (not cumulative); the last slot is past every bound. */
  counts: number[];
  sum: number;
  count: number;
}

export class HistogramFamily implements Family {
  readonly type = 'histogram' as const;
  readonly aggregator = 'sum' as const;
  private readonly all = new Map<string, Buckets>();

  /** @param bounds upper bounds, ascending, in the unit observed (seconds). */
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
  ) {}

  observe(key: string, labels: () => Labels, value: number): void {
    this.into(this.series(key, labels), value);
  }

  /** The series `key` names, made with `labels` on first use: a caller may keep it and pass it to `into`. */
  series(key: string, labels: () => Labels): Buckets {
    return seriesOf(this.all, key, () => ({ labels: labels(), counts: new Array(this.bounds.length + 1).fill(0), sum: 0, count: 0 }));
  }

  /** Records `value` in a series of this family. */
  into(s: Buckets, value: number): void {
    let i = 0;
    while (i < this.bounds.length && value > this.bounds[i]!) i++;
    s.counts[i]!++;
    s.sum += value;
    s.count++;
  }

  get() {
    const values: Value[] = [];
    for (const s of this.all.values()) {
      let cumulative = 0;
      for (let i = 0; i <= this.bounds.length; i++) {
        cumulative += s.counts[i]!;
        values.push({ labels: { le: i < this.bounds.length ? this.bounds[i]! : '+Inf', ...s.labels }, value: cumulative, metricName: `${this.name}_bucket` });
      }
      values.push({ labels: s.labels, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: s.labels, value: s.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

/**
 * Histogram bounds in seconds, 1 ms up in 1-2.5-5 steps until one is past `timeoutMs`, so a call
 * that ran into the upstream deadline still falls in a finite bucket of its own.
 */
export function durationBuckets(timeoutMs: number): number[] {
  const bounds: number[] = [];
  for (let decade = 0.001; ; decade *= 10) {
    for (const step of [1, 2.5, 5]) {
      const bound = Number((decade * step).toPrecision(3));
      bounds.push(bound);
      if (bound > timeoutMs / 1000) return bounds;
    }
  }
}
