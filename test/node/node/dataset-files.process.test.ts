/**
 * A damaged dataset is never "ready" (docs/reference/operations.md): the gateway runs from a scratch copy of
 * the sources beside a copy of generated/ that each test damages, as an interrupted copy or a full
 * disk would. Start-up checks sizes and the container's bounds, `--check` the hashes, and a read
 * that comes back short while serving turns `/readyz` to 503 `dataset` with one error line.
 */
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  utimesSync,
  writeFileSync,
  writeSync,
  closeSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rebuildAdvice } from '../../../src/node/dataset-files';
import { ROOT, startGatewayProcess, type GatewayProcess } from '../../../tools/processes';
import { scratchDir } from '../../support/scratch';

const MB = 1024 * 1024;
const running: GatewayProcess[] = [];
afterAll(() => Promise.all(running.map((g) => g.stop())));

/** The sources with the compiled dataset the Node gateway reads (`taxa.bin` and the manifest), in a directory of their own. */
function scratchInstall(): string {
  const dir = scratchDir('gateway-dataset');
  cpSync(join(ROOT, 'src'), join(dir, 'src'), { recursive: true });
  for (const file of ['package.json', 'tsconfig.json']) copyFileSync(join(ROOT, file), join(dir, file));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  mkdirSync(join(dir, 'generated'));
  for (const file of ['taxa.bin', 'manifest.json']) copyFileSync(join(ROOT, 'generated', file), join(dir, 'generated', file));
  // The fixture as shipped, older than what was compiled from it.
  mkdirSync(join(dir, 'fixtures'));
  copyFileSync(join(ROOT, 'fixtures/taxa.json'), join(dir, 'fixtures/taxa.json'));
  utimesSync(join(dir, 'fixtures/taxa.json'), 0, 0);
  return dir;
}

const gatewayIn = (dir: string) => [process.execPath, '--import', 'tsx', join(dir, 'src/node.ts')];

/** The gateway in `dir` run to its end (start-up refused, or `--check`): exit code and output lines. */
function runTo(dir: string, ...args: string[]) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(dir, 'src/node.ts'), ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1' },
    timeout: 60_000,
  });
  const lines = (text: string) => text.split('\n').filter(Boolean);
  return { code: run.status, stdout: lines(run.stdout), stderr: lines(run.stderr) };
}

/** Refused with exactly one line on stderr, no stack, naming the file and the rebuild command. */
function expectOneLine(run: ReturnType<typeof runTo>, problem: RegExp) {
  expect(run.code, run.stderr.join('\n')).toBe(1);
  expect(run.stderr, run.stderr.join('\n')).toHaveLength(1);
  expect(run.stderr[0]).toMatch(/^generated\/(taxa\.bin|manifest\.json) /);
  expect(run.stderr[0]).toMatch(problem);
  expect(run.stderr[0]).toContain('npm run data:compile');
}

/** Overwrites bytes of `file` at `at`, leaving its size. */
function alter(file: string, at: number) {
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.from('damaged!'), 0, 8, at);
  closeSync(fd);
}

describe('a damaged dataset is never ready', () => {
  it('refuses to start on a taxa.bin cut to 1 MB, with one line', () => {
    const dir = scratchInstall();
    truncateSync(join(dir, 'generated/taxa.bin'), MB);
    expectOneLine(runTo(dir), /taxa\.bin is 1048576 bytes where the build wrote \d+/);
  });

  it('refuses to start on a taxa.bin whose sections run past its end, with one line', () => {
    const dir = scratchInstall();
    // Cut, and the manifest made to agree: only the container's own bounds can tell.
    truncateSync(join(dir, 'generated/taxa.bin'), MB);
    const manifest = JSON.parse(readFileSync(join(dir, 'generated/manifest.json'), 'utf8'));
    manifest.files['taxa.bin'].bytes = MB;
    writeFileSync(join(dir, 'generated/manifest.json'), JSON.stringify(manifest));
    expectOneLine(runTo(dir), /taxa\.bin is not a dataset this gateway can read \(section \S+ ends at byte \d+, past the end of the file/);
  });

  it('refuses to start without a dataset, with one line', () => {
    const dir = scratchInstall();
    rmSync(join(dir, 'generated/taxa.bin'));
    expectOneLine(runTo(dir), /taxa\.bin is missing/);
  });

  it('refuses to start on a taxa.bin older than the fixture, with one line', () => {
    const dir = scratchInstall();
    // Compiling the fixture in memory instead would take more heap than the start flags allow.
    utimesSync(join(dir, 'fixtures/taxa.json'), new Date(), new Date());
    expectOneLine(runTo(dir), /taxa\.bin is older than fixtures\/taxa\.json/);
  });

  it('starts on a taxa.bin of the right size with altered bytes, and --check refuses it with one line', async () => {
    const dir = scratchInstall();
    alter(join(dir, 'generated/taxa.bin'), 30 * MB);
    const gateway = await startGatewayProcess({}, gatewayIn(dir));
    running.push(gateway);
    await gateway.stop();
    expectOneLine(runTo(dir, '--check'), /taxa\.bin does not have the SHA-256 the build recorded/);
    // The same check passes on the whole file.
    const whole = runTo(scratchInstall(), '--check');
    expect(whole.code, whole.stderr.join('\n')).toBe(0);
  });

  it('turns /readyz to 503 "dataset" with one error line once a read comes back short while serving', async () => {
    const dir = scratchInstall();
    const gateway = await startGatewayProcess({}, gatewayIn(dir));
    running.push(gateway);
    const get = (path: string) => fetch(`${gateway.origin}${path}`, { headers: { Authorization: 'ApiKey demo-project-key' } });
    expect((await get('/readyz')).status).toBe(200);
    // The open descriptor stays on the same file: every section not read yet is now past its end.
    truncateSync(join(dir, 'generated/taxa.bin'), MB);
    const answers = await Promise.all(['/v2/species?q=spruce', '/v2/plants?q=maple', '/v2/species?q=oak&page=2'].map(get));
    for (const res of answers) {
      const body = await res.text();
      expect(res.status, body).toBe(503);
      expect(JSON.parse(body).code, body).toBe('svc/datasetUnavailable');
    }
    const ready = await get('/readyz');
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'unavailable', dataset: { readable: false } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const errors = gateway.lines.filter((line) => line.includes('"level":"error"'));
    expect(errors, gateway.lines.join('\n')).toHaveLength(1);
    expect(errors[0]).toContain('generated/taxa.bin read short');
  });

  it('names, in a pruned install, a rebuild that needs no development tools', () => {
    expect(rebuildAdvice(true)).toContain('npm run data:compile');
    expect(rebuildAdvice(false)).not.toContain('data:compile');
    expect(rebuildAdvice(false)).toContain('npm ci && npm run build');
    // The built gateway where tsx is not installed, as after `npm prune --omit=dev`.
    const built = spawnSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: ROOT, encoding: 'utf8' });
    expect(built.status, built.stderr).toBe(0);
    const dir = scratchInstall();
    cpSync(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true });
    rmSync(join(dir, 'node_modules'));
    mkdirSync(join(dir, 'node_modules'));
    for (const name of readdirSync(join(ROOT, 'node_modules')).filter((n) => n !== 'tsx' && n !== '.bin')) {
      symlinkSync(join(ROOT, 'node_modules', name), join(dir, 'node_modules', name));
    }
    truncateSync(join(dir, 'generated/taxa.bin'), MB);
    const run = spawnSync(process.execPath, [join(dir, 'dist/node.js')], { cwd: dir, encoding: 'utf8', env: { ...process.env, PORT: '0', HOST: '127.0.0.1' } });
    const stderr = run.stderr.split('\n').filter(Boolean);
    expect(run.status, run.stderr).toBe(1);
    expect(stderr, run.stderr).toHaveLength(1);
    expect(stderr[0]).toMatch(/^generated\/taxa\.bin is 1048576 bytes .*npm ci && npm run build/);
    expect(stderr[0]).not.toContain('data:compile');
  });
});
