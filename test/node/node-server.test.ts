import { spawn, type ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';

const SECRETS = { TOKEN_SIGNING_SECRET: 'node-signing-secret-value', UPSTREAM_AUTHORIZATION: 'Bearer node-upstream-secret-value' };

interface Server {
  child: ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<number | null>;
}

let running: ChildProcess | undefined;
afterEach(() => {
  if (running && running.exitCode === null) running.kill('SIGKILL');
});

/** `npm start` as a real process on a free port (PORT=0), once it has logged that it listens. */
async function startServer(): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/node.ts'], {
    env: { ...process.env, PORT: '0', ...SECRETS },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running = child;
  let out = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line in 30 s:\n${out}`)), 30_000);
    const check = () => {
      const line = out.split('\n').find((l) => l.includes('"gateway listening"'));
      if (line) {
        clearTimeout(timer);
        resolve(JSON.parse(line).port);
      }
    };
    child.stdout!.on('data', check);
    exited.then((code) => reject(new Error(`exited ${code} before listening:\n${out}`)));
  });
  return { child, port, output: () => out, exited };
}

const opened = (port: number) =>
  new Promise<Socket>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });

describe('the Node entry as a process', () => {
  it('logs where it listens and its configuration, without secrets', async () => {
    const server = await startServer();
    const line = JSON.parse(server.output().split('\n').find((l) => l.includes('"gateway listening"'))!);
    expect(line.port).toBeGreaterThan(0);
    expect(line.config).toMatchObject({ tokenSigningSecret: '[set]', upstreamAuthorization: '[set]' });
    const res = await fetch(`http://127.0.0.1:${server.port}/v2/species`, { headers: { Authorization: 'ApiKey demo-project-key' } });
    expect(res.status).toBe(200);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    for (const secret of Object.values(SECRETS)) expect(server.output()).not.toContain(secret);
  });

  it('on SIGTERM stops accepting, finishes the request in flight, then exits 0', async () => {
    const server = await startServer();
    // A request whose headers are still arriving when the signal comes.
    const socket = await opened(server.port);
    let response = '';
    socket.on('data', (chunk) => (response += chunk));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write('GET /v2/species?q=abies HTTP/1.1\r\nHost: localhost\r\nAuthorization: ApiKey demo-project-key\r\n');
    await new Promise((resolve) => setTimeout(resolve, 200));

    server.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(server.child.exitCode, server.output()).toBeNull();
    await expect(opened(server.port), 'a new connection after SIGTERM').rejects.toThrow(/ECONNREFUSED/);

    socket.write('Connection: close\r\n\r\n');
    await closed;
    expect(response).toMatch(/^HTTP\/1\.1 200 /);
    expect(response).toContain('"current_page":1');
    const started = Date.now();
    expect(await server.exited, server.output()).toBe(0);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(server.output()).toContain('SIGTERM: draining');
  });
});
