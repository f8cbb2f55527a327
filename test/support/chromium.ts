/**
 * A headless Chromium for the browser tests, found without the system package manager: the
 * system's when one is installed (Debian's `chromium`, which `.ci/run` installs), otherwise the
 * build the npm package `@sparticuz/chromium` ships, unpacked once per package version into the
 * temporary directory. The package itself would reuse any `chromium` left in the temporary
 * directory whatever its version, so it is unpacked into a folder of its own version instead.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

const SYSTEM_CHROMIUMS = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** Flags for a closed network: no background connections that would be refused, no first-run work. */
const ARGS = [
  '--no-sandbox',
  '--headless',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export interface FoundChromium {
  executablePath: string;
  /** Where it came from, for the test output. */
  source: string;
  env?: Record<string, string>;
  /** Flags this build needs beyond the common ones. */
  args?: string[];
}

/** The system's Chromium (or `CHROMIUM_PATH`), else the npm registry's, unpacked on first use. */
export async function findChromium(): Promise<FoundChromium> {
  const chosen = process.env.CHROMIUM_PATH;
  for (const path of chosen ? [chosen] : SYSTEM_CHROMIUMS) {
    if (existsSync(path)) return { executablePath: path, source: `system (${path})` };
  }
  return unpackedChromium();
}

async function unpackedChromium(): Promise<FoundChromium> {
  const { version } = JSON.parse(readFileSync(packageManifest('@sparticuz/chromium'), 'utf8')) as { version: string };
  const home = join(tmpdir(), `botanical-test-chromium-${version}`);
  const found = {
    source: `@sparticuz/chromium ${version} (npm), unpacked in ${home}`,
    // The package's own fonts.conf names serverless paths; ours names the fonts it unpacked.
    env: { FONTCONFIG_PATH: join(home, 'fontconfig') },
    // A build for serverless hosts: its renderers crash when forked from a zygote.
    args: ['--no-zygote'],
  };
  if (existsSync(join(home, 'fontconfig', 'fonts.conf'))) return { executablePath: join(home, 'chromium'), ...found };
  // Unpacked into a folder of this process, then renamed into place: two test processes starting
  // at once never see a half-written binary.
  const staging = `${home}.${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const { default: packaged } = await import('@sparticuz/chromium');
  // The package unpacks into `os.tmpdir()`, which follows TMPDIR.
  const before = process.env.TMPDIR;
  process.env.TMPDIR = staging;
  try {
    await packaged.executablePath();
  } finally {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
  }
  mkdirSync(join(staging, 'fontconfig'));
  writeFileSync(
    join(staging, 'fontconfig', 'fonts.conf'),
    `<?xml version="1.0"?>\n<fontconfig>\n  <dir>${join(home, 'fonts')}</dir>\n  <cachedir>${join(home, 'fonts-cache')}</cachedir>\n</fontconfig>\n`,
  );
  try {
    renameSync(staging, home);
  } catch {
    // Another process got there first: use its copy.
    rmSync(staging, { recursive: true, force: true });
  }
  return { executablePath: join(home, 'chromium'), ...found };
}

/** A package's `package.json`, which its `exports` may not list: the folder its entry lies under. */
function packageManifest(name: string): string {
  let dir = dirname(createRequire(import.meta.url).resolve(name));
  while (!existsSync(join(dir, 'package.json')) || !dir.endsWith(name)) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above the entry of ${name}`);
    dir = up;
  }
  return join(dir, 'package.json');
}

/** A headless browser from `findChromium`, saying in the test output which one it is. */
export async function launchChromium(): Promise<Browser> {
  const found = await findChromium();
  console.info(`browser tests: Chromium from ${found.source}`);
  return chromium.launch({
    executablePath: found.executablePath,
    args: [...ARGS, ...(found.args ?? [])],
    env: { ...process.env, ...found.env } as Record<string, string>,
  });
}
