/**
 * Listen failures in one line naming the setting to change (src/node/listen-errors.ts, docs/reference/operations.md), in process: `listenError` for each error code a listen meets, from a real listen on
 * a port already taken on loopback, and `probeHost`, the check's test of `HOST` (a port of the
 * system's choosing, so the running gateway's own port does not fail it).
 */
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config';
import { listenError, probeHost } from '../../../src/node/listen-errors';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A listener on a loopback port of the system's choosing. */
async function taken(): Promise<number> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** The error a second listen on `port` meets. */
function listenOn(port: number, host: string): Promise<NodeJS.ErrnoException> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', resolve);
    server.listen(port, host, () => server.close(() => reject(new Error(`listening on ${host}:${port} succeeded`))));
  });
}

const error = (code: string | undefined, message = 'failed') => Object.assign(new Error(message), code ? { code } : {}) as NodeJS.ErrnoException;

describe('listenError', () => {
  it('names PORT for a port in use, from a real second listen on it', async () => {
    const port = await taken();
    const err = listenError(await listenOn(port, '127.0.0.1'), { host: '127.0.0.1', port });
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toBe(`Invalid configuration: PORT ${port} is already in use on 127.0.0.1: stop the other process or choose another PORT`);
  });

  it('names PORT for a port this user may not open', () => {
    expect(listenError(error('EACCES'), { host: '0.0.0.0', port: 80 }).message).toBe(
      'Invalid configuration: PORT 80 may not be opened by this user on 0.0.0.0: choose a PORT above 1023',
    );
  });

  it.each(['EADDRNOTAVAIL', 'ENOTFOUND', 'EAI_AGAIN'])('names HOST for %s: not an address of this machine', (code) => {
    expect(listenError(error(code), { host: '192.0.2.1', port: 8080 }).message).toBe(
      'Invalid configuration: HOST "192.0.2.1" is not an address of this machine (listening on 192.0.2.1:8080 failed): use 0.0.0.0, 127.0.0.1 or one of its addresses',
    );
  });

  it('names HOST and PORT with the code, or the message when there is no code, for anything else', () => {
    expect(listenError(error('EINVAL'), { host: '127.0.0.1', port: 8080 }).message).toBe(
      'Invalid configuration: HOST and PORT: listening on 127.0.0.1:8080 failed (EINVAL)',
    );
    expect(listenError(error(undefined, 'strange'), { host: '127.0.0.1', port: 8080 }).message).toBe(
      'Invalid configuration: HOST and PORT: listening on 127.0.0.1:8080 failed (strange)',
    );
  });
});

describe('probeHost', () => {
  it('passes on loopback even when the configured port is taken (the running gateway may hold it)', async () => {
    const port = await taken();
    await expect(probeHost({ host: '127.0.0.1', port })).resolves.toBeUndefined();
  });

  it('fails on an address that is not this machine, naming HOST', async () => {
    // TEST-NET-1: never an address of this machine, and no name to resolve.
    const probe = probeHost({ host: '192.0.2.1', port: 8080 });
    await expect(probe).rejects.toBeInstanceOf(ConfigError);
    await expect(probe).rejects.toThrow(
      'Invalid configuration: HOST "192.0.2.1" is not an address of this machine (listening on 192.0.2.1:8080 failed): use 0.0.0.0, 127.0.0.1 or one of its addresses',
    );
  });
});
