/**
 * Graceful stop (docs/reference/operations.md) with real processes and real signals: the gateway started
 * with the command line of deploy/Dockerfile and deploy/botanical-gateway.service (the same one),
 * and through `npm start`.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { type GatewayProcess, ROOT, startGatewayProcess, startNpm } from '../../../tools/processes';

const KEY = 'ApiKey demo-project-key';
const TOKEN_BODY = 'grant_type=client_credentials&client_id=demo-client&client_secret=demo-client-secret';
const LOAD_ENV = { RATE_LIMIT_PER_MINUTE: '1000000', TOKEN_RATE_LIMIT_PER_MINUTE: '1000000' };

/** The command of the Dockerfile's exec-form CMD. */
function dockerCommand(): string[] {
  const cmd = /^CMD\s+(\[.*\])\s*$/m.exec(readFileSync(`${ROOT}deploy/Dockerfile`, 'utf8'));
  return JSON.parse(cmd![1]!) as string[];
}

/** The command of the systemd unit's ExecStart. */
function unitCommand(): string[] {
  const exec = /^ExecStart=(.+)$/m.exec(readFileSync(`${ROOT}deploy/botanical-gateway.service`, 'utf8'));
  return exec![1]!.trim().split(/\s+/);
}

/** The production command line with this machine's node in place of the image's or the unit's. */
let production: string[];
beforeAll(() => {
  const build = spawnSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: ROOT, encoding: 'utf8' });
  expect(build.status, build.stderr).toBe(0);
  const [, ...args] = dockerCommand();
  production = [process.execPath, ...args];
}, 120_000);

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** When the request was sent (performance.now()). */
  sentAt: number;
}

/** One request; `body` is written in the pieces given, `pause` ms apart. */
function send(
  origin: string,
  path: string,
  options: { agent?: Agent | false; method?: string; headers?: Record<string, string>; body?: string[]; pause?: number } = {},
): Promise<Answer> {
  const sentAt = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(`${origin}${path}`, { agent: options.agent ?? false, method: options.method ?? 'GET', headers: options.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body, sentAt }));
      res.on('error', reject);
    });
    req.on('error', reject);
    const pieces = options.body ?? [];
    const write = (i: number) => {
      if (i === pieces.length) return void req.end();
      req.write(pieces[i]);
      setTimeout(() => write(i + 1), options.pause ?? 0);
    };
    write(0);
  });
}

const accessLines = (gateway: GatewayProcess) =>
  gateway.lines.flatMap((line) => {
    try {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      return typeof parsed.request_id === 'string' && 'status' in parsed ? [parsed] : [];
    } catch {
      return [];
    }
  });

/**
 * Resolves with the first 503 of `/readyz`, asked on a new connection each time. Once the listener
 * has closed, a new connection is refused and this rejects: a 503 seen shows readiness turned while
 * the gateway still took connections, whatever the machine's speed. Bounded by count, a guard.
 */
async function readyzTurns503(origin: string): Promise<Answer> {
  for (let asked = 0; asked < 1000; asked++) {
    const answer = await send(origin, '/readyz');
    if (answer.status === 503) return answer;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('/readyz never answered 503');
}

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => resolve(!socket.destroy()));
    socket.once('error', () => resolve(true));
  });

describe('graceful stop (docs/reference/operations.md)', () => {
  it('the Dockerfile, the systemd unit and `npm start` start node itself with the same flags', () => {
    const [program, ...args] = dockerCommand();
    expect(program).toBe('node');
    expect(args.at(-1)).toBe('dist/node.js');
    const [unitProgram, ...unitArgs] = unitCommand();
    expect(unitProgram).toMatch(/\/node$/);
    expect(unitArgs).toEqual(args);
    const start = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')).scripts.start as string;
    // `exec`: npm's shell becomes node, so the signal npm forwards reaches the gateway; scripts/start.mjs
    // runs the staleness check, then dist/node.js in the same process.
    expect(start).toBe(`exec node ${[...args.slice(0, -1), 'scripts/start.mjs'].join(' ')}`);
  });

  it('under steady keep-alive load, SIGTERM: /readyz 503 at once, answers with Connection: close, no accepted request lost, every answer logged, exit 0', async () => {
    const delayMs = 700;
    const gateway = await startGatewayProcess({ ...LOAD_ENV, SHUTDOWN_DELAY_MS: String(delayMs), SHUTDOWN_TIMEOUT_MS: '5000' }, production);
    try {
      const agent = new Agent({ keepAlive: true, maxSockets: 6 });
      const answers: Answer[] = [];
      const errors: { code: string; at: number }[] = [];
      let page = 0;
      const worker = async () => {
        for (;;) {
          try {
            answers.push(await send(gateway.origin, `/v2/species?page=${(page++ % 50) + 1}`, { agent, headers: { Authorization: KEY } }));
          } catch (err) {
            errors.push({ code: (err as NodeJS.ErrnoException).code ?? (err as Error).message, at: performance.now() });
            return;
          }
        }
      };
      const load = Promise.all(Array.from({ length: 6 }, worker));
      // A client still sending its body when the listener closes.
      const slow = send(gateway.origin, '/oauth/token', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': String(TOKEN_BODY.length) },
        body: [TOKEN_BODY.slice(0, 20), TOKEN_BODY.slice(20)],
        pause: 300 + delayMs + 500,
      });
      await new Promise((r) => setTimeout(r, 300));
      const signalled = performance.now();
      gateway.child.kill('SIGTERM');
      const notReady = await readyzTurns503(gateway.origin);
      const readyAt = performance.now();
      expect(JSON.parse(notReady.body)).toEqual({ status: 'stopping' });
      expect(notReady.headers.connection).toBe('close');

      const [, token] = await Promise.all([load, slow]);
      const { code } = await gateway.exited;
      agent.destroy();
      const out = gateway.lines.join('\n');
      expect(code, out).toBe(0);

      expect(token.status, token.body).toBe(200);
      expect(token.headers.connection).toBe('close');
      const after = answers.filter((a) => a.sentAt > readyAt);
      expect(after.length, 'requests answered while draining').toBeGreaterThan(0);
      expect(after.filter((a) => a.headers.connection !== 'close')).toEqual([]);
      expect(answers.filter((a) => a.status !== 200).map((a) => a.body)).toEqual([]);

      // Every answer has its access line, and every request the gateway read was answered.
      const logged = accessLines(gateway);
      const loggedIds = new Set(logged.map((l) => l.request_id));
      const answered = [...answers, token, notReady].map((a) => a.headers['svc-request-id']);
      expect(
        answered.filter((id) => !loggedIds.has(id)),
        'answers without an access line',
      ).toEqual([]);
      const answeredIds = new Set(answered);
      expect(
        logged.filter((l) => l.path !== '/readyz' && !answeredIds.has(l.request_id as string)),
        'requests read but not answered',
      ).toEqual([]);
      expect(logged.filter((l) => l.aborted)).toEqual([]);
      // The only failures: connections the closed listener no longer took.
      expect(errors.filter((e) => e.at < signalled + delayMs)).toEqual([]);
      expect(
        errors.every((e) => ['ECONNREFUSED', 'ECONNRESET', 'socket hang up'].includes(e.code)),
        JSON.stringify(errors),
      ).toBe(true);
      expect(out).toMatch(/"SIGTERM: draining"/);
      console.log(`drain: ${answers.length} answers (${after.length} while draining), client errors after close: ${JSON.stringify(errors.map((e) => e.code))}`);
    } finally {
      await gateway.stop();
    }
  });

  it('a connection accepted before the listener closed whose request arrives after it is answered, not dropped', async () => {
    const gateway = await startGatewayProcess({ SHUTDOWN_DELAY_MS: '300' }, production);
    try {
      gateway.child.kill('SIGTERM');
      await readyzTurns503(gateway.origin);
      // Accepted during the delay; its request is sent once the listener has closed.
      const socket = connect(Number(new URL(gateway.origin).port), '127.0.0.1');
      let raw = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => (raw += chunk));
      const ended = new Promise((resolve) => socket.once('close', resolve));
      await new Promise((r) => setTimeout(r, 600));
      expect(await refused(Number(new URL(gateway.origin).port)), 'the listener is still open').toBe(true);
      socket.write('GET /v2/species/ABBA HTTP/1.1\r\nHost: localhost\r\nAuthorization: ApiKey demo-project-key\r\n\r\n');
      await ended;
      expect(raw).toMatch(/^HTTP\/1\.1 200 /);
      expect(raw).toMatch(/\r\nConnection: close\r\n/i);
      expect((await gateway.exited).code, gateway.lines.join('\n')).toBe(0);
    } finally {
      await gateway.stop();
    }
  });

  it('a connection that never sends a request does not hold the stop until SHUTDOWN_TIMEOUT_MS', async () => {
    const gateway = await startGatewayProcess({ SHUTDOWN_TIMEOUT_MS: '20000' }, production);
    try {
      const silent = connect(Number(new URL(gateway.origin).port), '127.0.0.1');
      await new Promise((resolve) => silent.once('connect', resolve));
      await new Promise((r) => setTimeout(r, 100));
      const signalled = performance.now();
      gateway.child.kill('SIGTERM');
      // 0, not the 1 of a stop cut at SHUTDOWN_TIMEOUT_MS: the silent connection held nothing.
      expect((await gateway.exited).code, gateway.lines.join('\n')).toBe(0);
      expect(performance.now() - signalled, 'before the deadline').toBeLessThan(20_000);
      silent.destroy();
    } finally {
      await gateway.stop();
    }
  });

  it('requests still in flight at SHUTDOWN_TIMEOUT_MS (a body or a head still arriving) are cut: exit 1 with one line counting them', async () => {
    const gateway = await startGatewayProcess({ SHUTDOWN_TIMEOUT_MS: '300' }, production);
    try {
      // Announces a body it never finishes sending.
      const stuck = send(gateway.origin, '/oauth/token', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': String(TOKEN_BODY.length) },
        body: [TOKEN_BODY.slice(0, 10), TOKEN_BODY.slice(10)],
        pause: 10_000,
      }).catch((err: Error) => err);
      // Sends part of a request head, never the end of it.
      const head = connect(Number(new URL(gateway.origin).port), '127.0.0.1');
      head.on('error', () => {});
      head.write('GET /v2/species HTTP/1.1\r\nHost: localhost\r\n');
      await new Promise((r) => setTimeout(r, 200));
      const signalled = performance.now();
      gateway.child.kill('SIGTERM');
      const { code } = await gateway.exited;
      const took = performance.now() - signalled;
      const out = gateway.lines.join('\n');
      expect(code, out).toBe(1);
      // Cut at the deadline: not before it, and before the stuck body's sender would finish (10 s).
      expect(took).toBeGreaterThanOrEqual(290);
      expect(took).toBeLessThan(10_000);
      const lines = gateway.lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
      // Exactly one final line, and it is the count: nothing after it claims every request was answered.
      const stopped = lines.filter((l) => String(l.message).startsWith('stopped'));
      expect(stopped, out).toHaveLength(1);
      expect(stopped[0]).toMatchObject({ level: 'error', cut: 2 });
      expect(stopped[0]!.message).toMatch(/SHUTDOWN_TIMEOUT_MS \(300 ms\) with 2 requests cut/);
      expect(lines.at(-1)).toBe(stopped[0]);
      // Each cut request has its access line: the one being answered with what is known of it.
      const cut = lines.filter((l) => l.outcome === 'cut');
      expect(cut, out).toEqual([
        expect.objectContaining({ method: 'POST', path: '/oauth/token', status: null, source_address: '127.0.0.1', duration_ms: expect.any(Number) }),
        expect.objectContaining({ method: null, path: null, status: null, source_address: '127.0.0.1' }),
      ]);
      head.destroy();
      expect(await stuck).toBeInstanceOf(Error);
    } finally {
      await gateway.stop();
    }
  });

  it('SIGHUP never stops it; a second SIGINT while draining changes nothing', async () => {
    const gateway = await startGatewayProcess({}, production);
    try {
      gateway.child.kill('SIGHUP');
      await new Promise((r) => setTimeout(r, 300));
      expect(gateway.child.exitCode, gateway.lines.join('\n')).toBeNull();
      expect((await send(gateway.origin, '/readyz')).status).toBe(200);
      gateway.child.kill('SIGINT');
      gateway.child.kill('SIGINT');
      const { code } = await gateway.exited;
      expect(code, gateway.lines.join('\n')).toBe(0);
      expect(gateway.lines.filter((l) => l.includes(': draining'))).toHaveLength(1);
    } finally {
      await gateway.stop();
    }
  });

  it('`npm start`: SIGTERM to npm reaches node, which drains and exits; nothing is left serving', async () => {
    const npm = await startNpm(ROOT);
    try {
      const port = npm.ready?.port;
      expect(port, npm.output).toBeGreaterThan(0);
      expect(await refused(port!)).toBe(false);
      npm.child.kill('SIGTERM');
      const { code } = await npm.exited;
      expect(npm.output).toMatch(/"SIGTERM: draining"/);
      expect(code, npm.output).toBe(0);
      expect(await refused(port!), 'a gateway is still listening after npm exited').toBe(true);
    } finally {
      await npm.stop();
    }
  });
});
