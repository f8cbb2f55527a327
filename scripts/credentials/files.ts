import { closeSync, fchmodSync, fchownSync, fstatSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync, type Stats } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/**
 * A path typed on the command line is relative to the shell's directory: under `npm run`, the
 * script runs in the package root and npm passes the caller's directory as INIT_CWD.
 */
export function fromCommandLine(path: string): string {
  return resolve(process.env.INIT_CWD ?? process.cwd(), path);
}

/** Mode of a file the CLI creates: it lists who may call the API, so only its owner reads it. */
const NEW_FILE_MODE = 0o600;

/**
 * Writes `text` to `path` so that a reader (a gateway starting up) sees the old file or the new
 * one, never half of one: a temporary file beside it, flushed, then renamed over it. The new file
 * gets the owner, group and mode of the one it replaces (a gateway running as another user reads
 * it through them: root:botanical 0640), or 0600 when there was none. When they cannot be kept
 * (an operator who is neither root nor the owner) nothing is replaced and the error says why:
 * a file the gateway could no longer read would leave the old credentials in force.
 */
export function writeFileAtomic(path: string, text: string): void {
  const existing = statSync(path, { throwIfNoEntry: false });
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  rmSync(temp, { force: true });
  const fd = openSync(temp, 'wx', NEW_FILE_MODE);
  try {
    try {
      writeSync(fd, text);
      fsyncSync(fd);
      keepOwnership(fd, path, existing);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}

/** Gives the open temporary file the owner, group and mode of `existing` (or 0600 for a new file, whatever the umask). */
function keepOwnership(fd: number, path: string, existing: Stats | undefined): void {
  if (!existing) {
    fchmodSync(fd, NEW_FILE_MODE);
    return;
  }
  const mine = fstatSync(fd);
  if (mine.uid !== existing.uid || mine.gid !== existing.gid) {
    try {
      fchownSync(fd, existing.uid, existing.gid);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      throw new Error(
        `${path} belongs to uid ${existing.uid} gid ${existing.gid}, which this user cannot give the new file (${code}); run the command as root or as the file's owner: nothing was changed`,
      );
    }
  }
  // After the chown, which may clear set-id bits; the permission bits and the sticky bit are kept.
  fchmodSync(fd, existing.mode & 0o7777);
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
