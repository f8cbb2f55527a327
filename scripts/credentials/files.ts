import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/**
 * A path typed on the command line is relative to the shell's directory: under `npm run`, the
 * script runs in the package root and npm passes the caller's directory as INIT_CWD.
 */
export function fromCommandLine(path: string): string {
  return resolve(process.env.INIT_CWD ?? process.cwd(), path);
}

/**
 * Writes `text` to `path` so that a reader (a gateway starting up) sees the old file or the new
 * one, never half of one: a temporary file beside it, flushed, then renamed over it. An existing
 * file's permissions are kept.
 */
export function writeFileAtomic(path: string, text: string): void {
  const mode = statSync(path, { throwIfNoEntry: false })?.mode ?? 0o644;
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  const fd = openSync(temp, 'w', mode & 0o777);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temp, path);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}

/** The file's JSON, or undefined when there is no file. */
export function readJsonIfPresent(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`${path} is not JSON: ${(err as Error).message}`);
  }
}
