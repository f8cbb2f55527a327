/**
 * Starting and stopping the processes that tests, benchmarks and scripts drive: one way to spawn a
 * command, read its lines and wait for the one that says it is ready (or for it to end first).
 * Everything here waits on events (a line, an exit); the only timer is a guard that turns a
 * process that never answers into an error naming what it wrote.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { type AddressInfo, createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The repository, with a trailing slash. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface StartOptions<T> {
  command: string;
  args?: readonly string[];
  /** The repository by default. */
  cwd?: string;
  /** Over the caller's own environment, unless `baseEnv` replaces that. */
  env?: Record<string, string | undefined>;
  baseEnv?: NodeJS.ProcessEnv;
  /** Reads each stdout line (and stderr's, with `readyOn: 'any'`); the first that gives a value makes the process ready. */
  ready: (line: string) => T | undefined;
  readyOn?: 'stdout' | 'any';
  /** An exit before ready: `reject` (the default) fails the start; `resolve` answers with the exit. */
  earlyExit?: 'reject' | 'resolve';
  /** A guard, not a measure: how long to wait for ready or an exit before failing. */
  guardMs?: number;
  /** Its own process group, so `stop` ends the command and every process under it (npm and node). */
  group?: boolean;
  /** `inherit` passes stderr through (benchmarks); otherwise its lines are kept with stdout's. */
  stderr?: 'pipe' | 'inherit';
  /** `false` stops keeping lines once ready (a benchmarked server logs a line a request); they are still read. */
  keepLines?: boolean;
  uid?: number;
  gid?: number;
}

export interface Started<T> {
  child: ChildProcess;
  /** Every line so far, stdout and stderr in the order read; it goes on filling while the process runs. */
  lines: string[];
  stdout: string[];
  stderr: string[];
  /** Every line so far as one text. */
  readonly output: string;
  /** What `ready` read, once ready. */
  ready?: T;
  /** How it ended, when it ended before ready (`earlyExit: 'resolve'`). */
  exit?: Exit;
  /** How it ends, once its output is all read. */
  exited: Promise<Exit>;
  /** Ends it (its whole group when started as one) with `signal`, SIGKILL by default; resolves once it has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Spawns `command` and resolves once a stdout line makes it ready (or it ended, per `earlyExit`). */
export function startProcess<T>(options: StartOptions<T>): Promise<Started<T>> {
  const { command, args = [], cwd = ROOT, ready, earlyExit = 'reject', guardMs = 60_000, group = false, stderr = 'pipe', keepLines = true, readyOn = 'stdout' } = options;
  const child = spawn(command, args, {
    cwd,
    env: { ...(options.baseEnv ?? process.env), ...options.env },
    stdio: ['ignore', 'pipe', stderr],
    detached: group,
    ...(options.uid === undefined ? {} : { uid: options.uid }),
    ...(options.gid === undefined ? {} : { gid: options.gid }),
  });
  const lines: string[] = [];
  const stdoutLines: string[] = [];
  const stderrLines: string[] = [];
  const exited = new Promise<Exit>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  const started: Started<T> = {
    child,
    lines,
    stdout: stdoutLines,
    stderr: stderrLines,
    get output() {
      return lines.join('\n');
    },
    exited,
    stop: (signal = 'SIGKILL') => stop(child, group, signal, exited),
  };
  return new Promise((resolve, reject) => {
    const guard = setTimeout(() => {
      void started.stop();
      reject(new Error(`${command} ${args.join(' ')}: not ready within ${guardMs} ms:\n${started.output}`));
    }, guardMs);
    const read = (kept: string[], canBeReady: boolean) => (line: string) => {
      if (!keepLines && started.ready !== undefined) return;
      lines.push(line);
      kept.push(line);
      if (!canBeReady || started.ready !== undefined) return;
      const value = ready(line);
      if (value === undefined) return;
      clearTimeout(guard);
      started.ready = value;
      resolve(started);
    };
    if (child.stderr) createInterface({ input: child.stderr }).on('line', read(stderrLines, readyOn === 'any'));
    createInterface({ input: child.stdout! }).on('line', read(stdoutLines, true));
    child.once('error', (error) => {
      clearTimeout(guard);
      reject(error);
    });
    // `close` comes after the pipes are drained, so the last lines are read by then.
    void exited.then((exit) => {
      clearTimeout(guard);
      if (started.ready !== undefined) return;
      started.exit = exit;
      if (earlyExit === 'resolve') resolve(started);
      else reject(new Error(`${command} ${args.join(' ')} exited ${exit.code ?? exit.signal} before it was ready:\n${started.output}`));
    });
  });
}

function stop(child: ChildProcess, group: boolean, signal: NodeJS.Signals, exited: Promise<Exit>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return exited.then(() => undefined);
  try {
    if (group) process.kill(-child.pid!, signal);
    else child.kill(signal);
  } catch {
    /* already gone */
  }
  return exited.then(() => undefined);
}

/** What the gateway's `gateway listening` line says. */
export interface Listening {
  host: string;
  port: number;
  pid?: number;
  credentials?: Record<string, unknown>;
  config?: Record<string, unknown>;
}

/** The gateway's `gateway listening` line, read. */
export const gatewayListening = (line: string): Listening | undefined =>
  line.startsWith('{') && line.includes('"gateway listening"') ? (JSON.parse(line) as Listening) : undefined;

/** The sources through tsx: what tests start unless they need the production command. */
export const FROM_SOURCES: readonly string[] = [process.execPath, '--import', 'tsx', 'src/node.ts'];

export interface GatewayProcess extends Started<Listening> {
  origin: string;
  port: number;
}

/**
 * Starts the gateway as a real process on a free loopback port (by default `src/node.ts`; `command`
 * is another command line, run in the repository root); resolves once it listens. `user` runs it as
 * another user and group (a test running as root), as a service's `User=` does.
 */
export async function startGatewayProcess(
  env: Record<string, string>,
  command: readonly string[] = FROM_SOURCES,
  user: { uid?: number; gid?: number } = {},
): Promise<GatewayProcess> {
  const [program, ...args] = command;
  const started = await startProcess({
    command: program!,
    args,
    env: { PORT: '0', HOST: '127.0.0.1', ...env },
    ready: gatewayListening,
    ...user,
  });
  const port = started.ready!.port;
  return Object.assign(started, { port, origin: `http://127.0.0.1:${port}` });
}

/**
 * `npm start` in `cwd`, in a process group of its own (`stop` ends npm and node together);
 * resolves once the gateway listens, or once npm has ended without it listening (`exit` says how).
 */
export function startNpm(cwd: string, env: Record<string, string> = {}, args: readonly string[] = ['start']): Promise<Started<Listening>> {
  return startProcess({
    command: 'npm',
    args,
    cwd,
    env: { PORT: '0', HOST: '127.0.0.1', NODE_PATH: '', ...env },
    ready: gatewayListening,
    earlyExit: 'resolve',
    group: true,
  });
}

/** A loopback port the OS says is free now (for tools that need a number, not 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}
