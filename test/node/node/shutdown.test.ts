/**
 * The graceful stop in process (src/node/shutdown.ts, docs/reference/operations.md): `gracefulStop` over a
 * real `http.Server` on a loopback port, with fakes for the lifecycle, the log and `exit`, and
 * vitest's fake `setTimeout` for `SHUTDOWN_DELAY_MS`, the silent-connection grace and
 * `SHUTDOWN_TIMEOUT_MS` (the sockets stay real). Readiness flips at the signal, answers carry
 * `Connection: close` from then on, the listener closes after the delay, requests in flight are
 * answered, idle and silent connections do not hold the stop, and exactly one final line comes
 * with exit 0, or 1 with an access line for each request cut. Signals themselves
 * (`listenForStop`) are tested on a process in graceful-stop.test.ts.
 */
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { gracefulStop } from '../../../src/node/shutdown';
import { stoppableLifecycle } from '../../../src/services/lifecycle';
import type { LogLine } from '../../../src/services/log';
import { opened } from '../../support/raw-http';

interface Held {
  req: IncomingMessage;
  res: ServerResponse;
}

const servers: Array<ReturnType<typeof createServer>> = [];
afterEach(() => {
  vi.useRealTimers();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

/**
 * A server on 127.0.0.1 stopped by `gracefulStop`: requests to `/hold` wait until the test answers
 * them (`held`), others are answered at once. `exited` resolves with the exit code.
 */
async function stoppableServer(config: { delayMs: number; timeoutMs: number }) {
  const lifecycle = stoppableLifecycle();
  const lines: LogLine[] = [];
  const exits: number[] = [];
  let exited!: (code: number) => void;
  const exit = new Promise<number>((resolve) => (exited = resolve));
  const waiting: Array<(held: Held) => void> = [];
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/hold')) waiting.shift()?.({ req, res });
    else res.end('answered');
  });
  servers.push(server);
  const stopper = gracefulStop(server, config, {
    lifecycle,
    log: (line) => lines.push(line),
    exit: (code) => {
      exits.push(code);
      exited(code);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  /** The next request to `/hold`, once the server has it. */
  const held = () => new Promise<Held>((resolve) => waiting.push(resolve));
  return { server, port, lifecycle, lines, exits, exit, stop: stopper.stop, held };
}

/** A GET on a connection of its own (or the agent's); resolves with the whole answer. */
function get(port: number, path: string, headers: Record<string, string> = {}, agent?: Agent) {
  return new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, agent: agent ?? false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const closed = (socket: Socket) => new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));

/** Whether a new connection to `port` is refused (the listener is closed). */
const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });

/** Fake timers for the module's own `setTimeout` (the delay, the grace, the deadline); sockets keep their real ones. */
const fakeStopTimers = () => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });

const FINAL_OK = { level: 'info', message: 'stopped: every request in flight was answered' };

describe('a graceful stop', () => {
  it('turns readiness off at the signal, logs the drain, and exits 0 with one final line when nothing is in flight', async () => {
    fakeStopTimers();
    const s = await stoppableServer({ delayMs: 2000, timeoutMs: 30_000 });
    s.stop('SIGTERM');
    expect(s.lifecycle.stopping).toBe(true);
    expect(s.lines).toEqual([{ level: 'info', message: 'SIGTERM: draining', in_flight: 0, delay_ms: 2000, timeout_ms: 30_000 }]);
    // During SHUTDOWN_DELAY_MS the listener still accepts, and every answer says the connection closes.
    // (A keep-alive client, which does not ask for the close itself.)
    const during = await get(s.port, '/ready', {}, new Agent({ keepAlive: true }));
    expect(during).toEqual({ status: 200, connection: 'close', body: 'answered' });
    expect(s.exits).toEqual([]);
    // A second signal (npm forwards SIGINT again) changes nothing.
    s.stop('SIGINT');
    expect(s.lines).toHaveLength(1);
    vi.advanceTimersByTime(2000);
    expect(await s.exit).toBe(0);
    expect(await refused(s.port)).toBe(true);
    expect(s.lines.slice(1)).toEqual([FINAL_OK]);
    expect(s.exits).toEqual([0]);
  });

  it('answers the request in flight, with Connection: close, before it exits 0', async () => {
    fakeStopTimers();
    const s = await stoppableServer({ delayMs: 0, timeoutMs: 30_000 });
    const next = s.held();
    const answer = get(s.port, '/hold', {}, new Agent({ keepAlive: true }));
    const { res } = await next;
    s.stop('SIGTERM');
    expect(s.lines[0]).toMatchObject({ message: 'SIGTERM: draining', in_flight: 1 });
    vi.advanceTimersByTime(0);
    // The listener is closed; the request in flight is still being answered.
    expect(await refused(s.port)).toBe(true);
    expect(s.exits).toEqual([]);
    res.end('late answer');
    expect(await answer).toEqual({ status: 200, connection: 'close', body: 'late answer' });
    expect(await s.exit).toBe(0);
    expect(s.lines.slice(1)).toEqual([FINAL_OK]);
  });

  it('closes idle keep-alive connections when the listener closes', async () => {
    fakeStopTimers();
    const s = await stoppableServer({ delayMs: 0, timeoutMs: 30_000 });
    const socket = await opened(s.port);
    const head = new Promise<string>((resolve) => socket.once('data', (chunk) => resolve(chunk.toString())));
    socket.write('GET /first HTTP/1.1\r\nHost: gateway\r\n\r\n');
    // Answered before the signal: kept alive, then idle.
    expect(await head).toMatch(/^HTTP\/1\.1 200 OK\r\n(?![\s\S]*Connection: close)/);
    s.stop('SIGTERM');
    vi.advanceTimersByTime(0);
    await closed(socket);
    expect(await s.exit).toBe(0);
    expect(s.lines.slice(1)).toEqual([FINAL_OK]);
  });

  it('answers the first request of a connection accepted before the listener closed', async () => {
    fakeStopTimers();
    const s = await stoppableServer({ delayMs: 0, timeoutMs: 30_000 });
    const socket = await opened(s.port);
    s.stop('SIGTERM');
    vi.advanceTimersByTime(0);
    expect(await refused(s.port)).toBe(true);
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.write('GET /late HTTP/1.1\r\nHost: gateway\r\n\r\n');
    await closed(socket);
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: close\r\n[\s\S]*answered$/);
    expect(await s.exit).toBe(0);
  });

  it('does not wait for the deadline on a connection that never speaks: it is closed after a second', async () => {
    fakeStopTimers();
    const s = await stoppableServer({ delayMs: 0, timeoutMs: 30_000 });
    const silent = await opened(s.port);
    s.stop('SIGTERM');
    vi.advanceTimersByTime(0);
    expect(await refused(s.port)).toBe(true);
    expect(s.exits).toEqual([]);
    vi.advanceTimersByTime(999);
    expect(s.exits, 'stopped before the silent connection had its second').toEqual([]);
    vi.advanceTimersByTime(1);
    await closed(silent);
    expect(await s.exit).toBe(0);
    expect(s.lines.slice(1)).toEqual([FINAL_OK]);
  });

  it('at SHUTDOWN_TIMEOUT_MS cuts what is still in flight: an access line for each, one line counting them, exit 1', async () => {
    fakeStopTimers();
    const s = await stoppableServer({ delayMs: 0, timeoutMs: 5000 });
    const next = s.held();
    const answer = get(s.port, '/hold/v2/species?api_key=secret-key&q=abies', { 'User-Agent': 'drain-test' });
    await next;
    s.stop('SIGTERM');
    vi.advanceTimersByTime(0);
    vi.advanceTimersByTime(4999);
    expect(s.exits).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(await s.exit).toBe(1);
    await expect(answer).rejects.toThrow(/socket hang up|ECONNRESET/);
    const [, cut, final] = s.lines;
    expect(cut).toMatchObject({
      level: 'warn',
      method: 'GET',
      path: '/hold/v2/species?api_key=[redacted]&q=abies',
      status: null,
      outcome: 'cut',
      source_address: '127.0.0.1',
      user_agent: 'drain-test',
    });
    expect(typeof cut?.duration_ms).toBe('number');
    expect(Date.parse(cut?.time as string)).not.toBeNaN();
    expect(final).toEqual({ level: 'error', message: 'stopped after SHUTDOWN_TIMEOUT_MS (5000 ms) with 1 request cut', cut: 1 });
    expect(s.lines).toHaveLength(3);
    expect(s.exits).toEqual([1]);
  });

  it('counts only what a connection has not answered: not its earlier requests nor those of an idle connection, and both of a pipelined pair', async () => {
    fakeStopTimers();
    const s = await stoppableServer({ delayMs: 0, timeoutMs: 5000 });
    const socket = await opened(s.port);
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', () => {});
    // Two requests answered on the connection, then two pipelined in one write and held.
    for (let i = 0; i < 2; i++) {
      const before = received.length;
      socket.write('GET /ready HTTP/1.1\r\nHost: gateway\r\n\r\n');
      await vi.waitFor(() => expect(received.slice(before)).toContain('answered'), { timeout: 2000, interval: 5 });
    }
    // Another connection, answered and idle.
    const idle = await opened(s.port);
    let idleReceived = '';
    idle.setEncoding('latin1');
    idle.on('data', (chunk: string) => (idleReceived += chunk));
    idle.on('error', () => {});
    idle.write('GET /ready HTTP/1.1\r\nHost: gateway\r\n\r\n');
    await vi.waitFor(() => expect(idleReceived).toContain('answered'), { timeout: 2000, interval: 5 });
    const first = s.held();
    const second = s.held();
    socket.write('GET /hold/first HTTP/1.1\r\nHost: gateway\r\n\r\nGET /hold/second HTTP/1.1\r\nHost: gateway\r\n\r\n');
    await Promise.all([first, second]);
    s.stop('SIGTERM');
    expect(s.lines[0]).toMatchObject({ message: 'SIGTERM: draining', in_flight: 2 });
    vi.advanceTimersByTime(5000);
    expect(await s.exit).toBe(1);
    await closed(socket);
    expect(s.lines.filter((l) => l.outcome === 'cut').map((l) => l.path)).toEqual(['/hold/first', '/hold/second']);
    expect(s.lines.at(-1)).toEqual({ level: 'error', message: 'stopped after SHUTDOWN_TIMEOUT_MS (5000 ms) with 2 requests cut', cut: 2 });
  });

  it('at the deadline also cuts a request whose head was still arriving, and counts both', async () => {
    fakeStopTimers();
    const s = await stoppableServer({ delayMs: 0, timeoutMs: 5000 });
    const next = s.held();
    const answer = get(s.port, '/hold').catch((err: Error) => err);
    await next;
    const arriving = await opened(s.port);
    // The head's first line, then the request after the stop: a slow client.
    await new Promise<void>((resolve) => arriving.write('GET /slow HTTP/1.1\r\nHost: ga', () => resolve()));
    // The server must have read those bytes before the deadline: a later request on a connection of its own proves the loop has turned.
    await get(s.port, '/ready');
    s.stop('SIGTERM');
    vi.advanceTimersByTime(5000);
    expect(await s.exit).toBe(1);
    await answer;
    const cuts = s.lines.filter((l) => l.outcome === 'cut');
    expect(cuts.map((l) => [l.method, l.path])).toEqual([
      ['GET', '/hold'],
      [null, null],
    ]);
    expect(cuts[1]).toMatchObject({ duration_ms: null, user_agent: null, source_address: '127.0.0.1' });
    expect(s.lines.at(-1)).toEqual({ level: 'error', message: 'stopped after SHUTDOWN_TIMEOUT_MS (5000 ms) with 2 requests cut', cut: 2 });
  });
});
