/**
 * `npm start` runs the staleness check of `scripts/build.mjs` first (in the server's own process, through
 * `scripts/start.mjs`; here as `node scripts/build.mjs --if-stale`). On a built tree it must cost
 * milliseconds: the files' sizes and times recorded by the last build say nothing changed, so
 * nothing is hashed, compiled or bundled. A file whose time changed is compared by content once,
 * and the record is brought up to date.
 */
import { spawnSync } from 'node:child_process';
import { statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: plain JavaScript without declarations (it runs where only `dependencies` are installed)
import { unchangedSinceStamp, watchedFiles } from '../../scripts/build.mjs';

const ROOT = join(import.meta.dirname, '../..');
const build = (...args: string[]) => spawnSync(process.execPath, ['scripts/build.mjs', ...args], { cwd: ROOT, encoding: 'utf8' });

describe('the staleness check before npm start', () => {
  it('on a built tree, looks at file times only, and sees a touched file until it was compared', () => {
    const first = build('--if-stale');
    expect(first.status, first.stderr).toBe(0);
    expect(unchangedSinceStamp()).toBe(true);

    const bundle = statSync(join(ROOT, 'dist/node.js')).mtimeMs;
    const touched = join(ROOT, 'scripts/report.ts');
    const { atime, mtime } = statSync(touched);
    try {
      utimesSync(touched, atime, new Date(mtime.getTime() + 60_000));
      expect(unchangedSinceStamp(), 'a file with another time is looked at again').toBe(false);
      const again = build('--if-stale');
      expect(again.status, again.stderr).toBe(0);
      // Same contents: nothing rebuilt, and the stamp now knows the new time.
      expect(statSync(join(ROOT, 'dist/node.js')).mtimeMs).toBe(bundle);
      expect(unchangedSinceStamp()).toBe(true);
    } finally {
      utimesSync(touched, atime, mtime);
    }
    expect(unchangedSinceStamp(), 'the old time is another change too').toBe(false);
    expect(build('--if-stale').status).toBe(0);
  });

  it('watches the sources, the fixture and the compiled dataset the server reads', () => {
    const files = Object.keys(watchedFiles() as Record<string, string>);
    for (const file of ['package.json', 'package-lock.json', 'src/node.ts', 'scripts/compile-data.ts', 'fixtures/taxa.json', 'generated/taxa.bin']) {
      expect(files, file).toContain(file);
    }
  });
});
