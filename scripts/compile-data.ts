/**
 * Compiles `fixtures/taxa.json` into the artifact both runtimes open without parsing
 * (src/services/bundled/compile: records, orders and search; see docs/compiled-dataset.md):
 *
 *   generated/taxa.bin          the whole container, which the Node entry reads in place (positioned
 *                               reads of what a request needs)
 *   generated/assets/*.bin      the sections as separate pieces: Workers Static Assets on the edge
 *   generated/taxa.index.json   the pieces' index (types, lengths, the header), bundled into the worker
 *   generated/hot.bin           the few pieces the worker also carries itself (compile/hot.ts)
 *   generated/manifest.json     the size and SHA-256 of each file above, written last: the Node
 *                               gateway checks sizes at start-up and hashes in `npm run check`, so a
 *                               cut or altered copy is refused rather than served
 *
 *   npx tsx scripts/compile-data.ts [--if-stale]
 *
 * `--if-stale` (what `npm start`, `npm test` and the worker scripts run first) does nothing when
 * the artifact was built from the same fixture by the same compiler. Deterministic.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileDataset } from '../src/services/bundled/compile/index';
import { hotSections } from '../src/services/bundled/compile/hot';
import { readContainer, type SectionType, sectionTypeOf, writeContainer } from '../src/services/bundled/compiled/container';
import type { CompiledMeta } from '../src/services/bundled/compiled/layout';
import { pieceName } from '../src/services/bundled/compiled/store';
import { pieceIndex, type PieceIndex } from '../src/services/bundled/compiled/piece-index';
import { parseDatasetLines } from '../src/services/bundled/dataset-lines';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const FIXTURE = join(ROOT, 'fixtures/taxa.json');
export const ASSETS = join(ROOT, 'generated/assets');
export const INDEX = join(ROOT, 'generated/taxa.index.json');
export const HOT = join(ROOT, 'generated/hot.bin');
export const CONTAINER = join(ROOT, 'generated/taxa.bin');
export const MANIFEST = join(ROOT, 'generated/manifest.json');

/** The compiler's own sources: a change to any of them makes the artifact stale. */
const COMPILER_SOURCES = [
  'src/services/bundled/compile',
  'src/services/bundled/compiled/layout.ts',
  'src/services/bundled/compiled/container.ts',
  'src/services/bundled/compiled/piece-index.ts',
  'src/core/text.ts',
  'src/core/hash.ts',
  'src/core/resources.ts',
];

function files(path: string): string[] {
  const full = join(ROOT, path);
  return path.endsWith('.ts')
    ? [full]
    : readdirSync(full)
        .sort()
        .map((f) => join(full, f));
}

/** Digest of the fixture and the compiler that identifies an artifact. */
export function inputsDigest(fixture: Uint8Array): string {
  const hash = createHash('sha256').update(fixture);
  for (const file of COMPILER_SOURCES.flatMap(files)) hash.update(file.slice(ROOT.length)).update(readFileSync(file));
  return hash.digest('hex');
}

function builtFrom(): string | undefined {
  if (!existsSync(INDEX) || !existsSync(CONTAINER) || !existsSync(MANIFEST)) return undefined;
  try {
    return (JSON.parse(readFileSync(INDEX, 'utf8')) as PieceIndex).meta.inputs;
  } catch {
    return undefined;
  }
}

/** Each generated file (paths relative to generated/, `/`-separated), sorted. */
function generatedFiles(): string[] {
  const dir = dirname(MANIFEST);
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && join(e.parentPath, e.name) !== MANIFEST)
    .map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join('/'))
    .sort();
}

/**
 * Records the size and SHA-256 of every generated file (src/node/dataset-files.ts reads it). Written
 * after everything else, so a build cut short leaves no manifest, and the next `--if-stale` rebuilds.
 */
function writeManifest(): void {
  const files: Record<string, { bytes: number; sha256: string }> = {};
  for (const name of generatedFiles()) {
    const bytes = readFileSync(join(dirname(MANIFEST), name));
    files[name] = { bytes: bytes.byteLength, sha256: createHash('sha256').update(bytes).digest('hex') };
  }
  writeFileSync(MANIFEST, `${JSON.stringify({ files })}\n`);
}

/** Compiles the fixture into generated/ unless it is already compiled from the same inputs. */
export function compileIfStale(): void {
  main(['--if-stale']);
}

function main(argv: string[]): void {
  const started = performance.now();
  const fixture = new Uint8Array(readFileSync(FIXTURE));
  const inputs = inputsDigest(fixture);
  if (argv.includes('--if-stale') && builtFrom() === inputs) return;

  // Stage 1: read the source dataset; stages 2-4 are the compiler's.
  const artifact = compileDataset(parseDatasetLines(fixture), inputs);

  // Stage 4 wrote one container; on disk each section is a piece, for readers that load only what they need.
  const container = readContainer<CompiledMeta>(artifact);
  rmSync(MANIFEST, { force: true });
  rmSync(INDEX, { force: true });
  rmSync(ASSETS, { recursive: true, force: true });
  mkdirSync(ASSETS, { recursive: true });
  // A new file, not the old one rewritten: a server reading the old one keeps reading it whole.
  rmSync(CONTAINER, { force: true });
  writeFileSync(CONTAINER, artifact);
  const pieces: Array<readonly [string, SectionType]> = [];
  for (const name of container.names) {
    const data = container.section(name);
    writeFileSync(join(ASSETS, pieceName(name)), new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    pieces.push([name, sectionTypeOf(data)]);
  }
  writeFileSync(HOT, writeContainer(null, Object.fromEntries(hotSections(container.meta).map((name) => [name, container.section(name)]))));
  // The index last: its presence and `inputs` say the pieces are complete and current.
  writeFileSync(INDEX, JSON.stringify(pieceIndex(container.meta, pieces)));
  writeManifest();
  process.stdout.write(
    `compiled ${FIXTURE.slice(ROOT.length + 1)} into generated/ (${artifact.byteLength} bytes, ${container.names.length} pieces) in ${Math.round(performance.now() - started)} ms\n`,
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
