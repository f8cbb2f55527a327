/**
 * The compiled dataset on disk, for the bundled record source: opened and checked against what the
 * build recorded (src/node/dataset-files.ts), then read in place. The entry says where its files are
 * (`DatasetFiles`): paths it builds from its own `import.meta.url`, right for src/node.ts and for
 * its bundle dist/node.js alike.
 */
import { readSync, statSync } from 'node:fs';
import { BundledSource } from '../services/bundled/bundled-source';
import { fileContainerStore, type SectionStore } from '../services/bundled/compiled/store';
import { consoleLog } from '../services/log';
import { checkHash, datasetError, manifestEntry, openChecked, rebuildAdvice } from './dataset-files';

/** Where the dataset's files are. */
export interface DatasetFiles {
  /** The fixture it is compiled from (`fixtures/taxa.json`). */
  fixture: URL;
  /** The compiled dataset (`generated/taxa.bin`; `npm run data:compile`; `npm start` runs it first when stale). */
  compiled: URL;
  /** What the build recorded of each generated file (`generated/manifest.json`). */
  manifest: URL;
}

const modified = (url: URL) => statSync(url, { throwIfNoEntry: false })?.mtimeMs;

/** How far the compiled dataset is checked when opened: sizes and bounds at every start, hashes too by `npm run check`. */
export type DatasetCheck = 'sizes' | 'hashes';

/** A read of the compiled dataset that came back short while serving: one error line, the first time only. */
function logShortRead(detail: string): void {
  consoleLog({
    level: 'error',
    message: `generated/taxa.bin read short (cut or replaced while the gateway runs): /readyz answers 503 "dataset" and data requests 503 until the gateway restarts on a whole dataset; ${rebuildAdvice()}`,
    file: 'generated/taxa.bin',
    detail,
  });
}

/**
 * The compiled dataset on disk, read in place: opening it reads its header; a section is read by
 * a positioned read when a request first needs it, and the records' JSON whenever one does (the
 * operating system's page cache keeps the file, shared by every process on the machine, so the
 * process need not). The file stays open for the life of the process, so a recompile, which
 * writes a new file, never mixes two artifacts. Its size (and with `hashes` its SHA-256) must be
 * what the build recorded, and its sections within it: otherwise one line (`DatasetError`).
 */
export function openFileStore(files: DatasetFiles, check: DatasetCheck = 'sizes', onShortRead: (detail: string) => void = logShortRead): SectionStore {
  const label = 'generated/taxa.bin';
  const expected = manifestEntry(files.manifest, 'taxa.bin');
  const fd = openChecked(files.compiled, label, expected);
  if (check === 'hashes') checkHash(fd, label, expected);
  const readAt = (offset: number, length: number) => {
    // A buffer of its own: sections are viewed as typed arrays, which need its alignment.
    const bytes = Buffer.allocUnsafeSlow(length);
    const read = readSync(fd, bytes, 0, length, offset);
    return read === length ? bytes : bytes.subarray(0, read);
  };
  try {
    return fileContainerStore({ readAt, size: expected.bytes, onShortRead });
  } catch (err) {
    throw datasetError(label, `is not a dataset this gateway can read (${(err as Error).message})`);
  }
}

/**
 * The bundled record source over the compiled dataset: opening it reads only the container's
 * header, and memory holds only the pieces requests touched. A compiled dataset that is missing,
 * damaged or older than the fixture stops start-up with one line.
 */
export function openBundledSource(files: DatasetFiles, check: DatasetCheck = 'sizes'): BundledSource {
  const built = modified(files.compiled);
  const fixture = modified(files.fixture);
  if (built === undefined) throw datasetError('generated/taxa.bin', 'is missing');
  // Compiling in memory instead took some 350 MB, past the heap the start flags allow: refused.
  if (fixture !== undefined && built < fixture)
    throw datasetError('generated/taxa.bin', 'is older than fixtures/taxa.json (compiled from another fixture, or copied without its times)');
  return new BundledSource(openFileStore(files, check));
}
