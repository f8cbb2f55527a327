import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export const ROOT = new URL('../..', import.meta.url).pathname;

export interface GatewayProcess {
  origin: string;
  /** Every line it wrote so far, stdout and stderr. */
  lines: string[];
  child: ChildProcess;
  /** How it ended, once its output is all read: its exit code, or the signal that ended it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

/** The sources through tsx: what tests start unless they need the production command. */
const FROM_SOURCES = [process.execPath, '--import', 'tsx', 'src/node.ts'];

/**
 * Starts the gateway as a real process on a free loopback port (by default `src/node.ts`; `command`
 * is another command line, run in the repository root); resolves once it listens. `user` runs
 * it as another user and group (a test running as root), as a service's `User=` does.
 */
export function startGatewayProcess(
  env: Record<string, string>,
  command: readonly string[] = FROM_SOURCES,
  user: { uid?: number; gid?: number } = {},
): Promise<GatewayProcess> {
  const [program, ...args] = command;
  const child = spawn(program!, args, {
    ...user,
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line: ${lines.join('\n')}`)), 30_000);
    createInterface({ input: child.stderr! }).on('line', (l) => lines.push(l));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      if (!line.includes('gateway listening')) return;
      clearTimeout(timer);
      resolve({ origin: `http://127.0.0.1:${JSON.parse(line).port}`, lines, child, exited, stop });
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited ${code}: ${lines.join('\n')}`));
    });
  });
}

/** `npm start` as a test starts it: its process group, and what it wrote. */
export interface NpmStart {
  /** npm itself, the leader of its own process group (npm, and node under it). */
  child: ChildProcess;
  /** Every line so far, stdout and stderr; it goes on filling while the process runs. */
  lines: string[];
  /** Every line so far as one text. */
  readonly output: string;
  /** The gateway's "gateway listening" line, once it listened. */
  listening?: { port: number; pid?: number };
  /** Its exit code, when it ended instead of listening. */
  code?: number | null;
}

/**
 * `npm start` in `cwd`, detached in a process group of its own (`stopGroup` ends npm and node
 * together); resolves once the gateway listens, or once npm has ended without it listening.
 */
export function startNpm(cwd: string, env: Record<string, string> = {}): Promise<NpmStart> {
  const child = spawn('npm', ['start'], {
    cwd,
    detached: true,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', NODE_PATH: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const started: NpmStart = {
    child,
    lines,
    get output() {
      return lines.join('\n');
    },
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not listen:\n${started.output}`)), 60_000);
    createInterface({ input: child.stderr! }).on('line', (l) => lines.push(l));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      if (!line.includes('"gateway listening"')) return;
      clearTimeout(timer);
      started.listening = JSON.parse(line);
      resolve(started);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      started.code = code;
      // The pipes may still hold the last lines.
      setTimeout(() => resolve(started), 50);
    });
  });
}

/** Ends a process group `startNpm` started (npm, and the node under it), if it is still there. */
export function stopGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    /* already gone */
  }
}
