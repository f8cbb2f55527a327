import { createServer as createNetServer } from 'node:net';
import { type Config, ConfigError } from '../config';

/** A listen failure as one line naming the setting to change (docs/reference/operations.md), never a stack. */
export function listenError(err: NodeJS.ErrnoException, config: Pick<Config, 'host' | 'port'>): ConfigError {
  const where = `${config.host}:${config.port}`;
  if (err.code === 'EADDRINUSE')
    return new ConfigError('PORT', `${config.port} is already in use on ${config.host}: stop the other process or choose another PORT`);
  if (err.code === 'EACCES') return new ConfigError('PORT', `${config.port} may not be opened by this user on ${config.host}: choose a PORT above 1023`);
  if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') {
    return new ConfigError(
      'HOST',
      `${JSON.stringify(config.host)} is not an address of this machine (listening on ${where} failed): use 0.0.0.0, 127.0.0.1 or one of its addresses`,
    );
  }
  return new ConfigError('HOST', `and PORT: listening on ${where} failed (${err.code ?? err.message})`);
}

/**
 * For the check: whether `HOST` is an address this machine can listen on, by listening on it with
 * a port of the system's choosing (the configured one may be the running gateway's).
 */
export function probeHost(config: Pick<Config, 'host' | 'port'>): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', (err: NodeJS.ErrnoException) => reject(listenError(err, config)));
    probe.listen(0, config.host, () => probe.close(() => resolve()));
  });
}
