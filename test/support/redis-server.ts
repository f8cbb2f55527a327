import { type ChildProcess, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startProcess } from '../../tools/processes';

/** Whether `redis-server` can be started here (`.ci/run` installs it). */
export const REDIS_SERVER_INSTALLED = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;

export interface RedisServer {
  url: string;
  port: number;
  /** SIGSTOP: the connection stays open and nothing answers (a hung server). */
  pause(): void;
  resume(): void;
  /** Kills the server; `start()` brings a fresh one up on the same port. */
  kill(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** A real `redis-server` of its own, on a free loopback port, persisting nothing, in a temporary directory. */
export async function startRedisServer(): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    const redis = await startProcess({
      command: 'redis-server',
      args: ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
      ready: (line) => (line.includes('Ready to accept connections') ? true : undefined),
      guardMs: 20_000,
      keepLines: false,
    });
    child = redis.child;
  };
  const kill = () =>
    new Promise<void>((resolve) => {
      const proc = child;
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) return resolve();
      proc.once('exit', () => resolve());
      proc.kill('SIGCONT');
      proc.kill('SIGKILL');
    });
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
    kill,
    start,
    stop: async () => {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
