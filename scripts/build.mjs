/**
 * The production build of the Node gateway, and the check `npm start` runs first.
 *
 *   node scripts/build.mjs              (`npm run build`) compiles the dataset into generated/ and
 *                                       bundles each entry below into dist/<name>.js
 *   node scripts/build.mjs --if-stale   with the development tools installed: the same, skipping
 *                                       what is already current; without them (after `npm prune
 *                                       --omit=dev`): only checks the build is there. `npm start`
 *                                       does this in the server's own process (scripts/start.mjs)
 *
 * Plain JavaScript, so that it runs where only `dependencies` are installed. The packages every
 * start loads (`BUNDLED`) are bundled in, which saves Node resolving and loading their files (about
 * fifty) one by one at each start; the others, which only some configurations load (`import()` on
 * demand), stay external and are resolved from node_modules when one does. Nothing is compiled when
 * the server starts.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist');
const STAMP = join(DIST, 'build.json');

/**
 * What an operator runs in production: [source, name of the bundle in dist/]. A bundle sits one
 * directory below the root, as its source does, so paths it builds from `import.meta.url`
 * (`../generated/`, `../fixtures/`) stay right.
 */
export const ENTRIES = [
  ['src/node.ts', 'node'],
  ['scripts/kv-credentials.ts', 'kv-credentials'],
  ['scripts/credentials.ts', 'credentials'],
  ['scripts/report.ts', 'report'],
];

/** The packages every start of the gateway loads, bundled in; every other dependency stays external. */
const BUNDLED = ['hono', '@hono/node-server', 'lru-cache'];

/** Dependencies left to node_modules, with their subpaths (`@opentelemetry/api`, `swagger-ui-dist/…`). */
function externalPackages() {
  const { dependencies } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  return Object.keys(dependencies)
    .filter((name) => !BUNDLED.includes(name))
    .flatMap((name) => [name, `${name}/*`]);
}

/** Everything a bundle is made from: a change to any of these makes dist/ stale. */
const INPUTS = ['src', 'scripts', 'package.json', 'package-lock.json'];

function filesUnder(path) {
  const full = join(ROOT, path);
  const stat = statSync(full, { throwIfNoEntry: false });
  if (!stat?.isDirectory()) return stat ? [full] : [];
  return readdirSync(full, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/**
 * What `--if-stale` looks at first: the inputs' files with the fixture and the compiled dataset
 * the server reads. Their sizes and modification times (a few milliseconds to read), recorded by
 * the last build or check, say nothing changed since: then nothing is hashed and nothing spawned.
 * Any difference (an edit, a checkout, a copy) falls back to comparing contents.
 */
const WATCHED = [...INPUTS, 'fixtures/taxa.json', 'generated/taxa.bin', 'generated/taxa.index.json', 'generated/hot.bin', 'generated/manifest.json'];

/** Each watched file's size and modification time, by path. */
export function watchedFiles() {
  const out = {};
  for (const file of WATCHED.flatMap(filesUnder)) {
    const stat = statSync(file);
    out[relative(ROOT, file)] = `${stat.size} ${stat.mtimeMs}`;
  }
  return out;
}

/** Whether the watched files are as the stamp last saw them and the bundles are there. */
export function unchangedSinceStamp() {
  const seen = readStamp()?.seen;
  if (!seen || !ENTRIES.every(([, name]) => existsSync(join(DIST, `${name}.js`)))) return false;
  const now = watchedFiles();
  const names = Object.keys(now);
  return names.length === Object.keys(seen).length && names.every((name) => seen[name] === now[name]);
}

/** SHA-256 of the inputs' paths and contents (not their times: a copy or a checkout keeps it). */
function inputsDigest() {
  const hash = createHash('sha256');
  for (const file of INPUTS.flatMap(filesUnder)) hash.update(relative(ROOT, file)).update('\0').update(readFileSync(file));
  return hash.digest('hex');
}

function readStamp() {
  try {
    return JSON.parse(readFileSync(STAMP, 'utf8'));
  } catch {
    return undefined;
  }
}

function writeStamp(inputs, seen) {
  writeFileSync(STAMP, `${JSON.stringify({ inputs, entries: ENTRIES.map(([, name]) => `dist/${name}.js`), seen }, null, 2)}\n`);
}

const resolvable = (name) => {
  try {
    createRequire(import.meta.url).resolve(name);
    return true;
  } catch {
    return false;
  }
};

function compileDataset() {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/compile-data.ts', '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status ?? 1);
}

async function bundle(inputs, seen) {
  const esbuild = await import('esbuild');
  const started = performance.now();
  await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: Object.fromEntries(ENTRIES.map(([source, name]) => [name, source])),
    outdir: DIST,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    external: externalPackages(),
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  // esbuild's service process would otherwise live on beside a server started in this process.
  await esbuild.stop();
  // The stamp last: its presence says the bundles are complete.
  writeStamp(inputs, seen);
  process.stdout.write(`built ${ENTRIES.map(([, name]) => `dist/${name}.js`).join(', ')} in ${Math.round(performance.now() - started)} ms\n`);
}

/**
 * `--if-stale`: what `npm start` and `npm run check` (scripts/start.mjs) do before the server, in
 * the server's own process. Returns once `dist/` and `generated/` are current; stops the process with one
 * line when they are not and cannot be made so.
 */
export function buildIfStale() {
  return update(true);
}

async function update(ifStale) {
  if (!resolvable('esbuild') || !resolvable('tsx')) {
    const missing = [...ENTRIES.map(([, name]) => `dist/${name}.js`), 'generated/taxa.bin'].filter((p) => !existsSync(join(ROOT, p)));
    if (ifStale && existsSync(STAMP) && missing.length === 0) return;
    // Production without a build: say what to do in one line, never compile here.
    console.error(
      `${missing.length ? missing.join(', ') : 'dist/build.json'} missing and the development dependencies are not installed: run \`npm ci && npm run build\` before \`npm prune --omit=dev\`.`,
    );
    process.exit(1);
  }
  if (ifStale && unchangedSinceStamp()) return;
  compileDataset();
  // Seen before hashing: a file changed meanwhile differs from what the stamp records, and is hashed next time.
  const seen = watchedFiles();
  const inputs = inputsDigest();
  if (ifStale && readStamp()?.inputs === inputs && ENTRIES.every(([, name]) => existsSync(join(DIST, `${name}.js`)))) {
    writeStamp(inputs, seen);
    return;
  }
  await bundle(inputs, seen);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) await update(process.argv.slice(2).includes('--if-stale'));
