/**
 * The credential file, live (docs/reference/operations.md): read at start-up, and again on `SIGHUP` and
 * whenever the file changes, so a revoked or rotated credential takes effect without a restart.
 */
import { readFileSync, statSync } from 'node:fs';
import { ConfigError } from '../config';
import type { LogLine } from '../services/log';
import type { CredentialStore, OAuthClient, Principal } from '../services/credentials/credential-store';
import { MemoryCredentialStore, parseCredentialDocument } from '../services/credentials/credential-store';
import { DEMO_CREDENTIALS } from '../services/credentials/demo-credentials';

/**
 * How often the file is looked at. The credentials CLI (and most editors) replace the file by a
 * rename, which `fs.watch` on the file itself stops seeing, so its status is compared instead: a
 * `stat` every half second costs microseconds and bounds a revocation's delay well under 2 s.
 */
export const CREDENTIAL_POLL_MS = 500;

/** A store swapped whole: each lookup reads the one store in force at that moment, never a mix. */
export class SwappableCredentialStore implements CredentialStore {
  constructor(private current: MemoryCredentialStore) {}

  swap(next: MemoryCredentialStore): void {
    this.current = next;
  }
  counts(): ReturnType<MemoryCredentialStore['counts']> {
    return this.current.counts();
  }
  apiKey(digest: string): Principal | undefined {
    return this.current.apiKey(digest);
  }
  personalToken(digest: string): Principal | undefined {
    return this.current.personalToken(digest);
  }
  client(clientId: string): OAuthClient | undefined {
    return this.current.client(clientId);
  }
  tokenClient(clientId: string, credential: string | undefined): Principal | undefined {
    return this.current.tokenClient(clientId, credential);
  }
}

/**
 * Whether the last read of the file was applied, and when one last was: what `/metrics` reports,
 * as Prometheus reports its own configuration reloads, so a refused reload is seen without the logs.
 */
export interface ReloadStatus {
  successful: boolean;
  /** Milliseconds since the epoch of the last read applied (start-up's included). */
  lastSuccessMs: number;
}

export interface LiveCredentials {
  store: SwappableCredentialStore;
  /** How the last read ended. */
  status(): ReloadStatus;
  /** Reads the file again now (`SIGHUP`); a refused file leaves the store as it was. */
  reload(trigger: string): void;
  /** Stops looking at the file (tests; the process otherwise looks until it exits). */
  stop(): void;
}

/** The whole file validated into a store; throws with the problem (never with a secret: the file holds none). */
function readStore(path: string, allowEmpty: boolean): MemoryCredentialStore {
  return new MemoryCredentialStore(parseCredentialDocument(JSON.parse(readFileSync(path, 'utf8')), { allowEmpty }));
}

/**
 * A permission error in words an operator acts on: the user the gateway runs as (`npm run check`
 * runs as that user under the unit's `User=`) must be able to read the file.
 */
function unreadable(err: unknown): string | undefined {
  if ((err as NodeJS.ErrnoException).code !== 'EACCES') return undefined;
  return `this user (uid ${process.getuid?.()}) may not read it: give it the gateway's group and mode 0640 (root:botanical 0640)`;
}

/** What changes when the file is written or replaced; `missing` when there is none. */
function fileState(path: string): string {
  const s = statSync(path, { throwIfNoEntry: false });
  return s ? `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}` : 'missing';
}

/**
 * The credentials start-up serves: the whole file validated (a bad one is a `ConfigError` naming
 * `CREDENTIALS_FILE`), or the demo store, with a warning, when there is none. Also what a
 * configuration check reads.
 */
export function startupCredentials(file: string | undefined, warn: (message: string) => void): MemoryCredentialStore {
  if (!file) {
    warn('CREDENTIALS_FILE is not set: serving with the bundled demo credentials.');
    return new MemoryCredentialStore(DEMO_CREDENTIALS);
  }
  try {
    return readStore(file, false);
  } catch (err) {
    throw new ConfigError('CREDENTIALS_FILE', `(${file}) could not be loaded: ${unreadable(err) ?? (err as Error).message}`);
  }
}

/**
 * The credentials of `file` (or the demo store when there is none), kept current. Start-up
 * refuses a bad file with a `ConfigError`; later, a file that does not validate is refused whole
 * with one `error` line and the credentials in force stay. A file emptied of its last credential
 * is applied, with a warning: revoking must work even for the last one.
 */
export function liveCredentials(
  file: string | undefined,
  { log, warn, pollMs = CREDENTIAL_POLL_MS }: { log: (line: LogLine) => void; warn: (message: string) => void; pollMs?: number },
): LiveCredentials {
  const store = new SwappableCredentialStore(startupCredentials(file, warn));
  const last: ReloadStatus = { successful: true, lastSuccessMs: Date.now() };
  const status = () => ({ ...last });
  if (!file) {
    const reload = (trigger: string) => log({ level: 'info', message: `${trigger}: no CREDENTIALS_FILE to read again; the demo credentials stay` });
    return { store, status, reload, stop: () => {} };
  }
  let seen = fileState(file);

  const reload = (trigger: string) => {
    // The state is taken before the read: a change during the read is seen by the next look.
    seen = fileState(file);
    let next: MemoryCredentialStore;
    try {
      next = readStore(file, true);
    } catch (err) {
      const problem = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'the file does not exist' : (unreadable(err) ?? (err as Error).message);
      log({ level: 'error', message: `credentials not reloaded (${trigger}): ${file}: ${problem}; the credentials in force are kept`, file });
      last.successful = false;
      return;
    }
    store.swap(next);
    last.successful = true;
    last.lastSuccessMs = Date.now();
    const counts = next.counts();
    log({ level: 'info', message: 'credentials reloaded', trigger, file, credentials: counts });
    if (counts.projects + counts.clients + counts.personal_tokens === 0) {
      log({ level: 'warn', message: `${file} holds no credentials now: every credential is refused`, file });
    }
  };
  const timer = setInterval(() => {
    if (fileState(file) !== seen) reload('file changed');
  }, pollMs);
  // Looking at the file never keeps the process alive on its own.
  timer.unref();
  return { store, status, reload, stop: () => clearInterval(timer) };
}
