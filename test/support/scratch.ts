import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const made: string[] = [];

/**
 * A new directory under the system's temporary directory (named `<prefix>-` and six random
 * characters), removed with everything in it once the test file's tests and their own `afterAll`
 * hooks (which stop the processes that use it) have run.
 */
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  made.push(dir);
  return dir;
}

// Registered when a test file first imports this module, so it runs after that file's own hooks.
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});
