import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/core/crypto';
import { json, walkPages, type SuiteClient } from '../../suites/client';
import { exchange, opened } from '../../support/raw-http';
import { scratchDir } from '../../support/scratch';
import { FROM_SOURCES, gatewayListening, type Started, startProcess } from '../../../tools/processes';

const running: Started<unknown>[] = [];
afterAll(() => Promise.all(running.map((p) => p.stop())));

/**
 * Starts `src/node.ts` as a real process on a free loopback port; resolves with its lines so far,
 * or rejects with its exit code and lines when it ends without listening.
 */
async function startGateway(env: Record<string, string>): Promise<{ port: number; lines: string[]; child: ChildProcess }> {
  const started = await startProcess({
    command: process.execPath,
    args: FROM_SOURCES.slice(1),
    env: { PORT: '0', ...env },
    ready: gatewayListening,
    earlyExit: 'resolve',
  });
  running.push(started);
  if (!started.ready) throw Object.assign(new Error(`exited ${started.exit?.code}: ${started.output}`), { code: started.exit?.code, lines: started.lines });
  return { port: started.ready.port, lines: started.lines, child: started.child };
}

const over = (port: number, authorization: string): SuiteClient => ({
  get: (path, headers = { Authorization: authorization }, init = {}) => fetch(`http://127.0.0.1:${port}${path}`, { ...init, headers }),
});

describe('the Node server on a real loopback port', () => {
  it('starts over the whole dataset and walks an enumeration by links.next', async () => {
    const { port, lines } = await startGateway({});
    const startup = JSON.parse(lines.find((l) => l.includes('gateway listening'))!);
    // Issue 2 asks for start-up under 2 s; printed for the record, not asserted (machines vary).
    console.log(`start-up over ${startup.records.species} taxa: ${startup.startup_ms} ms`);
    expect(startup.records).toEqual({ species: 32800, genus: 3731, families: 361, plants: 24552 });
    const pages = await walkPages(over(port, 'ApiKey demo-project-key'), '/v2/families/Rosaceae/genus?order[name]=desc');
    const genera = pages.flatMap((p) => p.data);
    expect(genera.length).toBe(pages[0].meta.total);
    expect(pages.length).toBe(pages[0].meta.last_page);
    expect(genera.every((g: any) => g.family_id === 'Rosaceae')).toBe(true);
    expect(lines.some((l) => l.includes('CREDENTIALS_FILE is not set'))).toBe(true);
  });

  it('serves the credentials of CREDENTIALS_FILE instead of the demo store', async () => {
    const dir = scratchDir('creds');
    const file = join(dir, 'credentials.json');
    writeFileSync(file, JSON.stringify({ projects: [{ id: 'acme', key_sha256: await sha256Hex('acme-secret-key'), resources: ['families'] }] }));
    const { port } = await startGateway({ CREDENTIALS_FILE: file });
    const client = over(port, 'ApiKey acme-secret-key');
    expect((await client.get('/v2/families')).status).toBe(200);
    expect((await json(await client.get('/v2/species'))).code).toBe('auth/forbidden');
    expect((await client.get('/v2/families', { Authorization: 'ApiKey demo-project-key' })).status).toBe(401);
  });

  it.each([
    [{ RATE_LIMIT_PER_MINUTE: 'lots' }, 'RATE_LIMIT_PER_MINUTE'],
    [{ CREDENTIALS_FILE: '/nonexistent/credentials.json' }, 'CREDENTIALS_FILE'],
  ])('refuses to start on bad configuration %j, naming the variable', async (env, name) => {
    const failure = await startGateway(env).then(
      () => undefined,
      (err: { code?: number; lines?: string[] }) => err,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.lines?.join('\n')).toContain(name);
  });

  it('logs its configuration at start without the secrets', async () => {
    const secrets = { TOKEN_SIGNING_SECRET: 'node-signing-secret-value', UPSTREAM_AUTHORIZATION: 'Bearer node-upstream-secret-value' };
    const { lines, child } = await startGateway(secrets);
    const listening = JSON.parse(lines.find((l) => l.includes('gateway listening'))!);
    expect(listening.config).toMatchObject({ tokenSigningSecret: '[set]', upstreamAuthorization: '[set]' });
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    for (const secret of Object.values(secrets)) expect(lines.join('\n')).not.toContain(secret);
  });

  it('on SIGTERM stops accepting, finishes the request in flight, then exits 0', async () => {
    const { port, lines, child } = await startGateway({});
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // A request whose headers are still arriving when the signal comes.
    const socket = await opened(port);
    let response = '';
    socket.on('data', (chunk) => (response += chunk));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write('GET /v2/species?q=abies HTTP/1.1\r\nHost: localhost\r\nAuthorization: ApiKey demo-project-key\r\n');
    await new Promise((resolve) => setTimeout(resolve, 200));

    child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(child.exitCode, lines.join('\n')).toBeNull();
    await expect(opened(port), 'a new connection after SIGTERM').rejects.toThrow(/ECONNREFUSED/);

    socket.write('Connection: close\r\n\r\n');
    await closed;
    expect(response).toMatch(/^HTTP\/1\.1 200 /);
    expect(response).toContain('"current_page":1');
    // 0, not the 1 of a stop cut at SHUTDOWN_TIMEOUT_MS: the drain ended with the last request.
    expect(await exited, lines.join('\n')).toBe(0);
    expect(lines.join('\n')).toContain('SIGTERM: draining');
  });
});

describe('the Node entry against hostile clients (docs/reference/requests.md)', () => {
  it("answers what Node refuses in the gateway's shape, logs it on stdout, and applies the configured deadlines", async () => {
    const { port, lines } = await startGateway({ HEADERS_TIMEOUT_MS: '300', REQUEST_TIMEOUT_MS: '600' });
    const malformed = await exchange(port, ['GET /healthz HTTP/1.1\r\nHost: localhost\r\nBad Header: x\r\n\r\n']);
    expect(malformed.status, malformed.text).toBe(400);
    expect(malformed.headers['content-type']).toBe('application/problem+json');
    expect(malformed.headers.connection).toBe('close');
    const id = malformed.headers['svc-request-id']!;
    expect(JSON.parse(malformed.body)).toMatchObject({ code: 'svc/malformedRequest', instance: `urn:botanical:request:${id}` });

    const connectAnswer = await exchange(port, ['CONNECT localhost:443 HTTP/1.1\r\nHost: localhost:443\r\n\r\n']);
    expect(connectAnswer.status, connectAnswer.text).toBe(405);
    expect(connectAnswer.headers.allow).toBe('GET, HEAD');

    const slow = await exchange(port, ['GET /healthz HTTP/1.1\r\nHost: localhost\r\n', 2_500], 5_000);
    // The 408 is the configured deadline's (Node's default is a minute), whatever the machine's speed.
    expect(slow.status, slow.text).toBe(408);
    expect(slow.closedAfterMs, 'not before the deadline').toBeGreaterThanOrEqual(300);

    // A client leaving mid-body on the token endpoint.
    const leaving = await opened(port);
    leaving.write(
      'POST /oauth/token HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ngrant_type=cli',
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    leaving.destroy();

    // Log lines are written in batches of up to 50 ms.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const token = lines.filter((l) => l.includes('"/oauth/token"')).map((l) => JSON.parse(l));
    expect(token, lines.join('\n')).toEqual([expect.objectContaining({ level: 'info', aborted: true, status: null })]);
    expect(lines.filter((l) => l.includes('"level":"error"'))).toEqual([]);
    const logged = lines.filter((l) => l.includes(id));
    expect(logged, lines.join('\n')).toHaveLength(1);
    expect(JSON.parse(logged[0]!)).toMatchObject({ request_id: id, status: 400 });
  });
});
