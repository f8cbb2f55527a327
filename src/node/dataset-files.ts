/**
 * The compiled dataset's files as the Node gateway finds them: what the build recorded of each
 * (generated/manifest.json, scripts/compile-data.ts), checked before anything is served. A copy cut
 * short or altered stops start-up (sizes) or `npm run check` (hashes) with one line naming the file
 * and the command that rebuilds it in this install, rather than a gateway that reports ready and
 * answers 500.
 */
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';

/** A dataset the gateway will not serve: the message is the one line start-up prints. */
export class DatasetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatasetError';
  }
}

/** What the build recorded of one generated file. */
export interface ManifestEntry {
  bytes: number;
  sha256: string;
}

/** Whether the development tools are installed here: after `npm prune --omit=dev` tsx is gone. */
function developmentTools(): boolean {
  try {
    createRequire(import.meta.url).resolve('tsx');
    return true;
  } catch {
    return false;
  }
}

/**
 * The command that rebuilds generated/ as it works in this install: `npm run data:compile` needs
 * tsx, which a pruned production install does not have.
 */
export function rebuildAdvice(tools = developmentTools()): string {
  return tools
    ? 'run `npm run data:compile` to rebuild it'
    : 'rebuild it where the development dependencies are installed (`npm ci && npm run build`) and ship generated/ again (this install has no development tools)';
}

/** `problem` about `file` as the one line start-up prints. */
export const datasetError = (file: string, problem: string): DatasetError => new DatasetError(`${file} ${problem}: ${rebuildAdvice()}.`);

/** The manifest's entry for `name` (a path under generated/), or one line saying why there is none. */
export function manifestEntry(manifest: URL, name: string): ManifestEntry {
  let text: string;
  try {
    text = readFileSync(manifest, 'utf8');
  } catch (err) {
    throw datasetError('generated/manifest.json', unreadable(err));
  }
  let entry: ManifestEntry | undefined;
  try {
    entry = (JSON.parse(text) as { files: Record<string, ManifestEntry> }).files[name];
  } catch {
    throw datasetError('generated/manifest.json', 'is not a manifest the build wrote');
  }
  if (!entry) throw datasetError('generated/manifest.json', `does not list ${name}`);
  return entry;
}

/** Why a file could not be opened or read, in words. */
export function unreadable(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'is missing';
  if (code === 'EACCES' || code === 'EPERM') return 'may not be read by this user (check its owner and mode)';
  return `could not be read (${code ?? (err as Error).message})`;
}

/** Opens `file` for reading and checks its size against the manifest's; returns the descriptor. */
export function openChecked(file: URL, label: string, expected: ManifestEntry): number {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    throw datasetError(label, unreadable(err));
  }
  const size = fstatSync(fd).size;
  if (size !== expected.bytes) {
    closeSync(fd);
    throw datasetError(label, `is ${size} bytes where the build wrote ${expected.bytes} (cut short or replaced)`);
  }
  return fd;
}

/** Bytes hashed per read: the file is never held whole. */
const HASH_CHUNK = 1024 * 1024;

/** Checks the SHA-256 of an open file against the manifest's (`npm run check`). */
export function checkHash(fd: number, label: string, expected: ManifestEntry): void {
  const hash = createHash('sha256');
  const chunk = Buffer.allocUnsafe(HASH_CHUNK);
  for (let at = 0; ; ) {
    const read = readSync(fd, chunk, 0, HASH_CHUNK, at);
    if (read === 0) break;
    hash.update(chunk.subarray(0, read));
    at += read;
  }
  if (hash.digest('hex') !== expected.sha256) throw datasetError(label, 'does not have the SHA-256 the build recorded (altered or damaged)');
}
