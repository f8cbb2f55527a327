import { describe } from 'vitest';
import { REDIS_SERVER_INSTALLED } from './redis-server';

/**
 * `describe` for tests that need a real `redis-server`: where it is missing they are skipped, and
 * say so in their name and with a warning, never silently.
 */
export function describeWithRedis(name: string, body: () => void): void {
  if (!REDIS_SERVER_INSTALLED) console.warn(`skipped: redis-server not installed (apt-get install redis-server): ${name}`);
  describe.skipIf(!REDIS_SERVER_INSTALLED)(REDIS_SERVER_INSTALLED ? name : `${name} (skipped: redis-server not installed)`, body);
}
