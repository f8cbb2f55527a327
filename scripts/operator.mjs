/**
 * Runs an operator command (`npm run ops:credentials`, `npm run ops:kv-credentials`, `npm run ops:report`)
 * wherever the repository is: with the development tools installed, from its sources through tsx
 * (always current); without them (after `npm prune --omit=dev`), the bundle `npm run build` made
 * of it in dist/. Plain JavaScript, so that it runs where only `dependencies` are installed.
 *
 *   node scripts/operator.mjs <bundle name> [arguments...]
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ENTRIES } from './build.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const [name, ...args] = process.argv.slice(2);
const entry = ENTRIES.find(([source, bundle]) => bundle === name && source.startsWith('scripts/'));
if (!entry) {
  console.error(
    `operator.mjs: no operator command ${JSON.stringify(name)}; there are ${ENTRIES.filter(([s]) => s.startsWith('scripts/'))
      .map(([, b]) => b)
      .join(', ')}`,
  );
  process.exit(2);
}

let tsx = true;
try {
  createRequire(import.meta.url).resolve('tsx');
} catch {
  tsx = false;
}
const bundle = join(ROOT, 'dist', `${name}.js`);
if (!tsx && !existsSync(bundle)) {
  console.error(`dist/${name}.js missing and the development dependencies are not installed: run \`npm ci && npm run build\` before \`npm prune --omit=dev\`.`);
  process.exit(1);
}
const command = tsx ? ['--import', 'tsx', join(ROOT, entry[0]), ...args] : [bundle, ...args];
// The caller's directory stays the working directory: relative file arguments mean what they say.
const run = spawnSync(process.execPath, command, { stdio: 'inherit' });
process.exit(run.status ?? 1);
