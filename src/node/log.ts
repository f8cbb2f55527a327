/** The Node log: JSON lines on stdout, written in batches, bounded while the reader falls behind. */
import { writeSync } from 'node:fs';
import { type LogLine, logText } from '../services/log';

/** How long a log line may wait for its batch, and how large a batch may grow before it is written. */
const LOG_BATCH_MS = 50;
const LOG_BATCH_BYTES = 64 * 1024;
/** Log text the process may hold while its reader falls behind (a slow pipe, a stalled log shipper). */
export const LOG_QUEUE_MAX_BYTES = 8 * 1024 * 1024;

/** Where batched log text goes: stdout, or a stream of the test's. */
export interface LogSink {
  write(text: string): boolean;
  /** Bytes written but not yet taken by the reader. */
  readonly writableLength: number;
}

/**
 * Log lines written in batches: one write per 50 ms (or per 64 KiB) instead of one per request,
 * since each write is a system call that costs about as much as serving a small request. What the
 * reader has not taken yet is bounded by `maxQueuedBytes`: past it lines are dropped and counted,
 * and one warn line says how many once the reader catches up (an unbounded queue behind a slow
 * log shipper grew a gateway to 750 MB in 45 s), rather than the process running out of memory.
 */
export function batchedLog(sink: LogSink, maxQueuedBytes = LOG_QUEUE_MAX_BYTES) {
  let pending = '';
  let dropped = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const text = pending;
    pending = '';
    if (text) sink.write(text);
  };
  const log = (line: LogLine) => {
    const text = `${logText(line)}\n`;
    if (sink.writableLength + pending.length + text.length > maxQueuedBytes) {
      dropped++;
      return;
    }
    if (dropped > 0 && sink.writableLength + pending.length < maxQueuedBytes / 2) {
      pending += `${logText({ level: 'warn', message: 'log lines dropped: the log reader did not keep up', dropped })}\n`;
      dropped = 0;
    }
    pending += text;
    if (pending.length >= LOG_BATCH_BYTES) flush();
    else timer ??= setTimeout(flush, LOG_BATCH_MS).unref();
  };
  /** Takes what is still waiting for its batch (for a synchronous write at exit). */
  const take = () => {
    const text = pending;
    pending = '';
    return text;
  };
  return { log, take };
}

/** The access log on stdout, batched; whatever is pending at exit is written synchronously, so no line is lost at shutdown. */
export function batchedStdoutLog(): (line: LogLine) => void {
  const { log, take } = batchedLog(process.stdout);
  process.once('exit', () => {
    const text = take();
    if (text) writeSync(1, text);
  });
  return log;
}
