/** One access-log line (docs/reference/requests.md); secrets never reach it. */
export type LogLine = Record<string, unknown>;

/**
 * A log line as JSON text with `time` first (docs/reference/observability.md: every line of any kind has one,
 * warnings and start-up lines included); a line that has its own, as the access line does, keeps it.
 */
export function logText(line: LogLine, now = Date.now()): string {
  const text = JSON.stringify(line);
  if (line.time !== undefined) return text;
  return `{"time":"${new Date(now).toISOString()}"${text.length > 2 ? ',' : ''}${text.slice(1)}`;
}

/** The default log: one JSON line per entry on stdout. */
export const consoleLog = (line: LogLine): void => console.log(logText(line));
