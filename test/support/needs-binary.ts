import { existsSync } from 'node:fs';
import { describe } from 'vitest';
import { REDIS_SERVER_INSTALLED } from './redis-server';

/**
 * `describe` for tests that need a system binary (`.ci/run` installs each): where it is missing
 * they are skipped, and say so in their name and with a warning naming the package, never silently.
 */
export function describeNeeding(binary: { name: string; installed: boolean }, name: string, body: () => void): void {
  const missing = `skipped: ${binary.name} not installed (apt-get install ${binary.name})`;
  if (!binary.installed) console.warn(`${missing}: ${name}`);
  describe.skipIf(!binary.installed)(binary.installed ? name : `${name} (${missing})`, body);
}

/** Tests that start their own `redis-server`. */
export const describeWithRedis = (name: string, body: () => void) => describeNeeding({ name: 'redis-server', installed: REDIS_SERVER_INSTALLED }, name, body);

/** Debian's Chromium, which the browser tests drive (the browser's own download cannot work offline). */
export const CHROMIUM = '/usr/bin/chromium';

/** Tests that drive Chromium. */
export const describeWithChromium = (name: string, body: () => void) => describeNeeding({ name: 'chromium', installed: existsSync(CHROMIUM) }, name, body);
