import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url).pathname;
const groups: ChildProcess[] = [];
const stop = (child: ChildProcess) => {
  try {
    // `npm start` is npm, a shell and node: the whole process group goes.
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    /* already gone */
  }
};
let copy: string | undefined;
afterAll(() => {
  groups.forEach(stop);
  if (copy) rmSync(copy, { recursive: true, force: true });
});

/** The repository as a fresh clone would have it: tracked and new files, no node_modules, dist/ or generated/. */
function cloneLike(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-build-'));
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  for (const file of listed.stdout.split('\0').filter((f) => f && existsSync(join(ROOT, f)))) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    copyFileSync(join(ROOT, file), join(dir, file));
  }
  return dir;
}

const npm = (cwd: string, ...args: string[]) => spawnSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, NODE_PATH: '' } });

/** `npm start` in `cwd` on a free port: its output until it listens (or exits), and the port. */
function npmStart(cwd: string): Promise<{ port?: number; code?: number | null; output: string; child: ChildProcess }> {
  const child = spawn('npm', ['start'], {
    cwd,
    detached: true,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', NODE_PATH: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  groups.push(child);
  const lines: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not listen:\n${lines.join('\n')}`)), 60_000);
    createInterface({ input: child.stderr! }).on('line', (l) => lines.push(l));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      if (line.includes('gateway listening')) {
        clearTimeout(timer);
        resolve({ port: JSON.parse(line).port, output: lines.join('\n'), child });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      setTimeout(() => resolve({ code, output: lines.join('\n'), child }), 50);
    });
  });
}

async function speciesStatus(port: number): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}/v2/species/ABBA`, { headers: { Authorization: 'ApiKey demo-project-key' } });
  return res.status;
}

/** Package names a bundle imports (`hono/jwt` → `hono`, `@hono/node-server/conninfo` → `@hono/node-server`). */
function importedPackages(bundle: string): string[] {
  const specifiers = [...bundle.matchAll(/(?:^|\n)\s*import\s[^;]*?from\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g)].map((m) => (m[1] ?? m[2])!);
  return [
    ...new Set(
      specifiers
        .filter((s) => !s.startsWith('node:') && !builtinModules.includes(s))
        .map((s) =>
          s
            .split('/')
            .slice(0, s.startsWith('@') ? 2 : 1)
            .join('/'),
        ),
    ),
  ];
}

describe('the production build (CONTRACT section 17)', () => {
  it('a fresh clone starts with `npm start`; after `npm run build` it serves with only `dependencies` installed, and refuses without a build', async () => {
    copy = cloneLike();
    // Development: the repository's own installation, development tools included.
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));

    // The README's first command on a fresh clone: nothing built yet, `npm start` builds what it needs.
    const dev = await npmStart(copy);
    expect(dev.port, dev.output).toBeGreaterThan(0);
    expect(await speciesStatus(dev.port!)).toBe(200);
    stop(dev.child);

    const build = npm(copy, 'run', 'build');
    expect(build.status, build.stderr).toBe(0);
    const bundle = readFileSync(join(copy, 'dist/node.js'), 'utf8');
    const dependencies = Object.keys(JSON.parse(readFileSync(join(copy, 'package.json'), 'utf8')).dependencies);
    expect(importedPackages(bundle).length).toBeGreaterThan(0);
    expect(
      importedPackages(bundle).filter((p) => !dependencies.includes(p)),
      'packages the bundle imports outside `dependencies`',
    ).toEqual([]);

    // Production: the same tree with only `dependencies` installed (from the npm cache, no network).
    expect(lstatSync(join(copy, 'node_modules')).isSymbolicLink()).toBe(true);
    unlinkSync(join(copy, 'node_modules'));
    const install = npm(copy, 'ci', '--omit=dev', '--offline', '--no-audit', '--no-fund', '--ignore-scripts');
    expect(install.status, install.stderr).toBe(0);
    const resolveFromCopy = createRequire(join(copy, 'package.json'));
    for (const tool of ['tsx', 'esbuild', 'typescript']) expect(() => resolveFromCopy.resolve(tool), `${tool} must not be installed`).toThrow();

    const prod = await npmStart(copy);
    expect(prod.port, prod.output).toBeGreaterThan(0);
    expect(await speciesStatus(prod.port!)).toBe(200);
    // Nothing compiled at start-up: neither the dataset nor the code.
    expect(prod.output).not.toMatch(/compil|built dist/);
    stop(prod.child);

    rmSync(join(copy, 'dist'), { recursive: true });
    const refused = await npmStart(copy);
    expect(refused.port, refused.output).toBeUndefined();
    expect(refused.code).not.toBe(0);
    expect(refused.output).toMatch(/dist\/node\.js.*missing.*`npm ci && npm run build`/);
    expect(refused.output).not.toMatch(/\n\s+at /);
  }, 120_000);
});
