import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Started, startNpm } from '../../tools/processes';

const ROOT = new URL('../..', import.meta.url).pathname;
const groups: Started<unknown>[] = [];
let copy: string | undefined;
/** Directories to remove at the end. */
const made: string[] = [];
afterAll(() => {
  for (const group of groups) void group.stop();
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/**
 * The paths the README's "What to ship" sentence names, in its order: the backquoted words before
 * its first parenthesis (`dist/`, ..., `node_modules/`).
 */
function shipList(production: string): string[] {
  const sentence = production.split('**What to ship**:')[1]?.split('(')[0] ?? '';
  return [...sentence.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
}

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

const npm = (cwd: string, ...args: string[]) => npmWith({}, cwd, ...args);
const npmWith = (env: Record<string, string>, cwd: string, ...args: string[]) =>
  spawnSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, NODE_PATH: '', CREDENTIALS_FILE: '', ...env } });

/** The bundles `npm run build` makes, each with its source map, and the stamp saying they are complete. */
const SHIPPED_BUNDLES = ['node', 'credentials', 'kv-credentials', 'report'];

/** `npm start` in `cwd` on a free port: its output until it listens (or exits), and the port. */
async function npmStart(cwd: string): Promise<{ port?: number; code?: number | null; output: string; stop: () => Promise<void> }> {
  const started = await startNpm(cwd);
  groups.push(started);
  return { port: started.ready?.port, code: started.exit?.code, output: started.output, stop: () => started.stop() };
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

describe('the production build (docs/reference/operations.md)', () => {
  it('a fresh clone starts with `npm start`; after `npm run build` it serves with only `dependencies` installed, and refuses without a build', async () => {
    copy = cloneLike();
    made.push(copy);
    // Development: the repository's own installation, development tools included.
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));

    // The README's first command on a fresh clone: nothing built yet, `npm start` builds what it needs.
    const dev = await npmStart(copy);
    expect(dev.port, dev.output).toBeGreaterThan(0);
    expect(await speciesStatus(dev.port!)).toBe(200);
    await dev.stop();

    const build = npm(copy, 'run', 'build');
    expect(build.status, build.stderr).toBe(0);
    // Exactly what the README says to ship in dist/, and nothing of the Workers build.
    expect(readdirSync(join(copy, 'dist')).sort()).toEqual(['build.json', ...SHIPPED_BUNDLES.flatMap((b) => [`${b}.js`, `${b}.js.map`])].sort());
    const production = readFileSync(join(copy, 'README.md'), 'utf8').split('## Production on Node')[1]!.split('\n## ')[0]!;
    for (const bundle of SHIPPED_BUNDLES) expect(production, `README's Production on Node names dist/${bundle}.js`).toContain(`dist/${bundle}.js`);
    expect(JSON.parse(readFileSync(join(copy, 'package.json'), 'utf8')).scripts['build:worker']).not.toMatch(/--outdir dist(\s|$)/);
    const bundle = readFileSync(join(copy, 'dist/node.js'), 'utf8');
    const dependencies = Object.keys(JSON.parse(readFileSync(join(copy, 'package.json'), 'utf8')).dependencies);
    expect(importedPackages(bundle).length).toBeGreaterThan(0);
    expect(
      importedPackages(bundle).filter((p) => !dependencies.includes(p)),
      'packages the bundle imports outside `dependencies`',
    ).toEqual([]);
    // Packages only some configurations use (METRICS_PORT, REDIS_URL) are loaded when one does:
    // importing the bundle loads neither (a package imported statically anywhere in it would be).
    // The same probe sees prom-client once it is imported, so an empty answer is not a blind one.
    const probe = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { createRequire } = await import('node:module');
const loaded = () => Object.keys(createRequire(${JSON.stringify(join(copy, 'package.json'))}).cache).filter((f) => f.includes('/node_modules/prom-client/') || f.includes('/node_modules/ioredis/')).length;
await import(${JSON.stringify(join(copy, 'dist/node.js'))});
const withBundle = loaded();
await import('prom-client');
console.log(JSON.stringify({ withBundle, afterImport: loaded() }));`,
      ],
      { cwd: copy, encoding: 'utf8' },
    );
    expect(probe.status, probe.stderr).toBe(0);
    expect(JSON.parse(probe.stdout), 'modules of prom-client and ioredis loaded').toEqual({ withBundle: 0, afterImport: expect.any(Number) });
    expect(JSON.parse(probe.stdout).afterImport).toBeGreaterThan(0);

    // Production: exactly what the README says to ship, with only `dependencies` installed (from
    // the npm cache, no network), as `npm ci --omit=dev` on the target does.
    const toShip = shipList(production);
    expect(toShip, 'the README names node_modules/ and package.json to ship').toEqual(expect.arrayContaining(['node_modules/', 'package.json']));
    const shipped = mkdtempSync(join(tmpdir(), 'gateway-shipped-'));
    made.push(shipped);
    for (const path of toShip.filter((p) => p !== 'node_modules/')) {
      expect(existsSync(join(copy, path)), `${path}, listed to ship, is in the build`).toBe(true);
      cpSync(join(copy, path), join(shipped, path), { recursive: true, preserveTimestamps: true });
    }
    const install = npm(shipped, 'ci', '--omit=dev', '--offline', '--no-audit', '--no-fund', '--ignore-scripts');
    expect(install.status, install.stderr).toBe(0);
    const resolveFromCopy = createRequire(join(shipped, 'package.json'));
    for (const tool of ['tsx', 'esbuild', 'typescript']) expect(() => resolveFromCopy.resolve(tool), `${tool} must not be installed`).toThrow();
    copy = shipped;

    const prod = await npmStart(copy);
    expect(prod.port, prod.output).toBeGreaterThan(0);
    expect(await speciesStatus(prod.port!)).toBe(200);
    // Nothing compiled at start-up: neither the dataset nor the code.
    expect(prod.output).not.toMatch(/compil|built dist/);

    // Every operator command the README names runs without the development tools, and answers --help.
    const helped = [...production.matchAll(/^npm run (\S+) -- --help$/gm)].map((m) => m[1]);
    expect(helped, 'the README shows --help for each operator command').toEqual(['ops:credentials', 'ops:kv-credentials', 'ops:report', 'check']);
    for (const [script, usage] of [
      ['ops:credentials', /usage:\n\s+npm run ops:credentials -- create project/],
      ['ops:kv-credentials', /^usage: npm run ops:kv-credentials --/],
      ['ops:report', /^usage: npm run ops:report --/],
      ['check', /^usage: npm start .*\n\s+npm run check /],
    ] as const) {
      const help = npm(copy, 'run', '--silent', script, '--', '--help');
      expect(help.status, `${script} --help: ${help.stderr}`).toBe(0);
      expect(help.stderr).toMatch(usage);
    }
    const created = npm(copy, 'run', '--silent', 'ops:credentials', '--', 'create', 'project', 'acme', '--file', 'prod-credentials.json');
    expect(created.status, created.stderr).toBe(0);
    const secret = created.stdout.trim();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const listed = npm(copy, 'run', '--silent', 'ops:credentials', '--', 'list', '--file', 'prod-credentials.json');
    expect(listed.stdout, listed.stderr).toMatch(/^project\s+acme\s/m);
    const kv = npm(copy, 'run', '--silent', 'ops:kv-credentials', '--', 'prod-credentials.json', '--out', 'prod-kv.json');
    expect(kv.status, kv.stderr).toBe(0);
    expect(readFileSync(join(copy, 'prod-kv.json'), 'utf8')).not.toContain(secret);
    writeFileSync(
      join(copy, 'prod-gateway.log'),
      `${JSON.stringify({ level: 'info', time: '2026-01-01T00:00:00Z', request_id: 'r1', method: 'GET', path: '/v1/species', version: 'v1', route: '/species', status: 200, subject: 'project:acme', credential: 'v1:query' })}\n`,
    );
    const report = npm(copy, 'run', '--silent', 'ops:report', '--', '--json', 'prod-gateway.log');
    expect(report.status, report.stderr).toBe(0);
    expect(JSON.stringify(JSON.parse(report.stdout))).toContain('acme');

    // `npm run check` validates as start-up would, without listening (the running gateway holds the port).
    const checked = npmWith({ CREDENTIALS_FILE: 'prod-credentials.json', PORT: String(prod.port), HOST: '127.0.0.1' }, copy, 'run', '--silent', 'check');
    expect(checked.status, checked.stdout + checked.stderr).toBe(0);
    expect(checked.stdout).toMatch(/"check passed: the gateway would start \(not listening\)".*"credentials":\{"source":"CREDENTIALS_FILE","projects":1/);
    const broken = npmWith({ CREDENTIALS_FILE: 'prod-gateway.log' }, copy, 'run', '--silent', 'check');
    expect(broken.status).toBe(1);
    expect(broken.stderr.trim()).toMatch(/^Invalid configuration: CREDENTIALS_FILE \(prod-gateway\.log\) could not be loaded: [^\n]+$/);
    await prod.stop();

    rmSync(join(copy, 'dist'), { recursive: true });
    const refused = await npmStart(copy);
    expect(refused.port, refused.output).toBeUndefined();
    expect(refused.code).not.toBe(0);
    expect(refused.output).toMatch(/dist\/node\.js.*missing.*`npm ci && npm run build`/);
    expect(refused.output).not.toMatch(/\n\s+at /);
  }, 240_000);
});

describe('the Dockerfile and the systemd unit (docs/reference/operations.md)', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const dockerfile = readFileSync(join(ROOT, 'deploy/Dockerfile'), 'utf8');
  const unit = readFileSync(join(ROOT, 'deploy/botanical-gateway.service'), 'utf8');

  it('the image holds exactly what the README says to ship', () => {
    const copied = [...dockerfile.matchAll(/^COPY --from=build (.+) \S+$/gm)].flatMap((m) =>
      m[1]!.split(/\s+/).map((p) => {
        const path = p.replace(/^\/app\//, '');
        return path.includes('.') ? path : `${path}/`;
      }),
    );
    expect(copied.sort()).toEqual(shipList(readme.split('## Production on Node')[1]!).sort());
  });

  it('start node itself (signals reach the gateway), and the unit reloads with SIGHUP', () => {
    expect(dockerfile).toMatch(/^CMD \["node", /m);
    expect(unit).toMatch(/^ExecStart=\/usr\/bin\/node /m);
    expect(unit).toMatch(/^ExecReload=\/bin\/kill -HUP \$MAINPID$/m);
    expect(`${dockerfile}\n${unit}`).not.toMatch(/^(CMD|ExecStart=).*\bnpm\b/m);
  });
});

describe('what git keeps out of the repository', () => {
  it.each(['credentials.json', 'dist/node.js', 'dist-worker/worker.js'])('%s is ignored', (path) => {
    const ignored = spawnSync('git', ['check-ignore', '--quiet', '--no-index', path], { cwd: ROOT });
    expect(ignored.status, `${path} is not in .gitignore`).toBe(0);
  });
});
