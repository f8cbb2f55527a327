import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { batchedLog } from '../../../src/node/log';
import { logText } from '../../../src/services/log';

/** A log reader that takes nothing until released: a stalled pipe or log shipper. */
function stalledReader() {
  const received: string[] = [];
  let stalled = true;
  const waiting: Array<() => void> = [];
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: string, _encoding, done) {
      received.push(chunk);
      if (stalled) waiting.push(done);
      else done();
    },
  });
  const release = async () => {
    stalled = false;
    while (waiting.length > 0) {
      waiting.shift()!();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await new Promise((resolve) => setImmediate(resolve));
  };
  const lines = () =>
    received
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { stream, release, lines };
}

describe('the batched access log', () => {
  it('holds at most its bound while the reader is stalled, counts what it drops, and says so once the reader is back', async () => {
    const reader = stalledReader();
    const max = 200_000;
    const { log } = batchedLog(reader.stream, max);
    const total = 20_000;
    let held = 0;
    for (let i = 0; i < total; i++) {
      log({ n: i, path: '/v2/species?q=abies&page=2', status: 200 });
      held = Math.max(held, reader.stream.writableLength);
    }
    // 20,000 lines of ~60 bytes are 1.2 MB: without the bound, all of it would wait in memory.
    expect(held).toBeLessThanOrEqual(max);
    await reader.release();
    log({ n: total, after: true });
    log({ n: total + 1, after: true });
    await new Promise((resolve) => setTimeout(resolve, 80));
    const lines = reader.lines();
    const kept = lines.filter((l) => typeof l.n === 'number' && l.after === undefined);
    const warnings = lines.filter((l) => l.level === 'warn');
    expect(warnings).toHaveLength(1);
    const warning = warnings[0];
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(total);
    expect(warning, JSON.stringify(lines.slice(-3))).toMatchObject({
      message: 'log lines dropped: the log reader did not keep up',
      dropped: total - kept.length,
    });
    expect(lines.slice(-2)).toEqual([
      { time: expect.any(String), n: total, after: true },
      { time: expect.any(String), n: total + 1, after: true },
    ]);
    // Every line has its time, the warning included (docs/reference/observability.md).
    for (const line of lines) expect(Date.parse(line.time as string), JSON.stringify(line)).not.toBeNaN();
    // The lines kept are the first ones, in order: dropping never reorders.
    expect(kept.map((l) => l.n)).toEqual(Array.from({ length: kept.length }, (_, i) => i));
  });

  it('keeps a line that fills the bound exactly, drops one past it, and warns once less than half of it is taken', () => {
    const max = 10_000;
    const sink = { writableLength: 0, write: () => true };
    const { log, take } = batchedLog(sink, max);
    const line = { n: 1 };
    // A line's text is fixed in length (its time is an ISO instant).
    const length = `${logText(line)}\n`.length;
    const taken = () =>
      take()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);

    sink.writableLength = max - length;
    log(line);
    expect(taken(), 'the bound reached, not passed').toEqual([{ time: expect.any(String), n: 1 }]);
    sink.writableLength = max - length + 1;
    log(line);
    expect(taken(), 'one byte past the bound').toEqual([]);

    // Half the bound taken by the reader: not yet less than half, so no warning, and the line is kept.
    sink.writableLength = max / 2;
    log(line);
    // What waits in the batch counts too: one byte under half with a line pending is not under half.
    sink.writableLength = max / 2 - 1;
    log(line);
    expect(taken()).toEqual([
      { time: expect.any(String), n: 1 },
      { time: expect.any(String), n: 1 },
    ]);
    log(line);
    expect(taken()).toEqual([
      { time: expect.any(String), level: 'warn', message: 'log lines dropped: the log reader did not keep up', dropped: 1 },
      { time: expect.any(String), n: 1 },
    ]);
  });

  it('drops nothing while the reader keeps up', async () => {
    const reader = stalledReader();
    await reader.release();
    const { log } = batchedLog(reader.stream, 200_000);
    for (let i = 0; i < 20_000; i++) {
      log({ n: i });
      if (i % 1000 === 999) await new Promise((resolve) => setImmediate(resolve));
    }
    await new Promise((resolve) => setTimeout(resolve, 80));
    const lines = reader.lines();
    expect(lines.some((l) => l.level === 'warn')).toBe(false);
    expect(lines.map((l) => l.n)).toEqual(Array.from({ length: 20_000 }, (_, i) => i));
  });
});

describe('a log line as text (docs/reference/observability.md)', () => {
  const NOW = Date.parse('2026-11-28T12:00:00.000Z');

  it('puts the time first, before the line’s own fields', () => {
    expect(logText({ level: 'warn', message: 'm' }, NOW)).toBe('{"time":"2026-11-28T12:00:00.000Z","level":"warn","message":"m"}');
  });

  it('an empty line is its time alone', () => {
    expect(logText({}, NOW)).toBe('{"time":"2026-11-28T12:00:00.000Z"}');
  });

  it('a line with a time of its own (the access line) keeps it', () => {
    expect(logText({ time: '2026-01-01T00:00:00.000Z', status: 200 }, NOW)).toBe('{"time":"2026-01-01T00:00:00.000Z","status":200}');
  });
});
