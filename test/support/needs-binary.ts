import { describe } from 'vitest';
import { REDIS_SERVER_INSTALLED } from './redis-server';

/**
 * `describe` for tests whose subject is a system service (`.ci/run` installs each): where it is missing
 * they are skipped, and say so in their name and with a warning naming the package, never silently.
 */
export function describeNeeding(binary: { name: string; installed: boolean }, name: string, body: () => void): void {
  const missing = `skipped: ${binary.name} not installed (apt-get install ${binary.name})`;
  if (!binary.installed) console.warn(`${missing}: ${name}`);
  describe.skipIf(!binary.installed)(binary.installed ? name : `${name} (${missing})`, body);
}

/** Tests that start their own `redis-server`. */
export const describeWithRedis = (name: string, body: () => void) => describeNeeding({ name: 'redis-server', installed: REDIS_SERVER_INSTALLED }, name, body);
