/** Child processes for the benchmarks: each server gets its own event loop, as in a deployment. */
import { spawn, type ChildProcess } from 'node:child_process';

const ROOT = new URL('..', import.meta.url);

export interface Server {
  url: string;
  child: ChildProcess;
}

/**
 * Runs `script` (TypeScript, through tsx) with `env`; resolves with the URL `urlOf` reads from the
 * first stdout line that announces it, then keeps draining stdout so the child never blocks.
 */
export function startServer(name: string, script: string, env: Record<string, string>, urlOf: (line: string) => string | undefined): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let buffer = '';
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString();
      for (const line of buffer.split('\n')) {
        const url = urlOf(line);
        if (url === undefined) continue;
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        resolve({ url, child });
        return;
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code} before listening`)));
  });
}

/** Starts `src/node.ts` with `env` on an ephemeral loopback port; resolves once it listens. */
export function startGateway(name: string, env: Record<string, string>): Promise<Server> {
  return startServer(name, 'src/node.ts', { PORT: '0', RATE_LIMIT_PER_MINUTE: '1000000000', TOKEN_SIGNING_SECRET: 'bench', ...env }, (line) =>
    line.includes('"gateway listening"') ? `http://127.0.0.1:${JSON.parse(line).port}` : undefined,
  );
}
