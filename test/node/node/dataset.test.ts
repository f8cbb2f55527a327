/**
 * Opening the compiled dataset on Node (src/node/dataset.ts, dataset-files.ts; docs/reference/operations.md), in process: the files in `generated/` open and serve; a copy in a scratch directory that is
 * cut short, altered, older than its fixture, missing, or whose manifest is missing, damaged or
 * silent about it is refused with the one line start-up prints, naming the file and the command
 * that rebuilds it; and a file cut while open answers 503 and turns readiness off, told once.
 * dataset-integrity.test.ts checks the same lines from real processes.
 */
import { copyFileSync, mkdirSync, openSync, closeSync, readFileSync, statSync, truncateSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openBundledSource, openFileStore, type DatasetFiles } from '../../../src/node/dataset';
import { DatasetError, rebuildAdvice, unreadable } from '../../../src/node/dataset-files';
import { BundledSource } from '../../../src/services/bundled/bundled-source';
import { gatewayOver } from '../../support/gateway';
import { scratchDir } from '../../support/scratch';

const ROOT = new URL('../../../', import.meta.url);

/** The files as the Node entry finds them in the repository. */
const REPOSITORY: DatasetFiles = {
  fixture: new URL('fixtures/taxa.json', ROOT),
  compiled: new URL('generated/taxa.bin', ROOT),
  manifest: new URL('generated/manifest.json', ROOT),
};

/** A copy of the dataset's files in a scratch directory, the compiled file newer than the fixture. */
function copied(): DatasetFiles & { dir: string } {
  const dir = scratchDir('dataset-open');
  mkdirSync(join(dir, 'generated'));
  mkdirSync(join(dir, 'fixtures'));
  const files = {
    dir,
    fixture: pathToFileURL(join(dir, 'fixtures', 'taxa.json')),
    compiled: pathToFileURL(join(dir, 'generated', 'taxa.bin')),
    manifest: pathToFileURL(join(dir, 'generated', 'manifest.json')),
  };
  writeFileSync(files.fixture, '{}');
  copyFileSync(REPOSITORY.compiled, files.compiled);
  copyFileSync(REPOSITORY.manifest, files.manifest);
  const past = new Date('2026-01-01T00:00:00Z');
  utimesSync(files.fixture, past, past);
  return files;
}

const BYTES = () => statSync(REPOSITORY.compiled).size;
const ADVICE = 'run `npm run data:compile` to rebuild it';

/** The message of the `DatasetError` that `open` throws. */
function refusal(open: () => unknown): string {
  try {
    open();
  } catch (err) {
    expect(err).toBeInstanceOf(DatasetError);
    return (err as Error).message;
  }
  throw new Error('the dataset was opened');
}

describe('the compiled dataset as built', () => {
  it('opens, checked by sizes and by hashes, and answers a record', async () => {
    for (const check of ['sizes', 'hashes'] as const) {
      const source = openBundledSource(REPOSITORY, check);
      expect(source.counts().species, check).toBeGreaterThan(1000);
      const found = await source.get('species', 'ABBA');
      expect(found?.record, check).toMatchObject({ id: 'ABBA' });
    }
  });

  it('opens from a copy with its manifest, wherever it lies', () => {
    expect(openBundledSource(copied(), 'hashes').counts()).toEqual(openBundledSource(REPOSITORY).counts());
  });
});

describe('a compiled dataset start-up refuses', () => {
  it('when it is cut short, by its size', () => {
    const files = copied();
    truncateSync(files.compiled, 1000);
    expect(refusal(() => openBundledSource(files))).toBe(
      `generated/taxa.bin is 1000 bytes where the build wrote ${BYTES()} (cut short or replaced): ${ADVICE}.`,
    );
  });

  it('when altered at its size: the check (hashes) refuses, start-up (sizes) does not look', () => {
    const files = copied();
    const fd = openSync(files.compiled, 'r+');
    writeSync(fd, Buffer.from([0x5a, 0xa5, 0x5a, 0xa5]), 0, 4, Math.floor(BYTES() / 2));
    closeSync(fd);
    expect(refusal(() => openBundledSource(files, 'hashes'))).toBe(
      `generated/taxa.bin does not have the SHA-256 the build recorded (altered or damaged): ${ADVICE}.`,
    );
    expect(() => openBundledSource(files, 'sizes')).not.toThrow();
  });

  it('when its header is not one this gateway reads', () => {
    const files = copied();
    const fd = openSync(files.compiled, 'r+');
    writeSync(fd, Buffer.alloc(64, 0xff), 0, 64, 0);
    closeSync(fd);
    expect(refusal(() => openBundledSource(files))).toMatch(
      /^generated\/taxa\.bin is not a dataset this gateway can read \(.+\): run `npm run data:compile` to rebuild it\.$/,
    );
  });

  it('when it is missing, or older than the fixture', () => {
    const files = copied();
    const future = new Date(Date.now() + 3_600_000);
    utimesSync(files.fixture, future, future);
    expect(refusal(() => openBundledSource(files))).toBe(
      `generated/taxa.bin is older than fixtures/taxa.json (compiled from another fixture, or copied without its times): ${ADVICE}.`,
    );
    // Without the fixture (a production install ships none), the age is not compared.
    expect(() => openBundledSource({ ...files, fixture: new URL('missing.json', files.fixture) })).not.toThrow();
    expect(refusal(() => openBundledSource({ ...files, compiled: new URL('nothing.bin', files.compiled) }))).toBe(`generated/taxa.bin is missing: ${ADVICE}.`);
    expect(refusal(() => openFileStore({ ...files, compiled: new URL('nothing.bin', files.compiled) }))).toBe(`generated/taxa.bin is missing: ${ADVICE}.`);
  });

  it('when its manifest is missing, unreadable, not the build’s, or does not list it', () => {
    const files = copied();
    const at = (name: string) => pathToFileURL(join(files.dir, name));
    expect(refusal(() => openBundledSource({ ...files, manifest: at('none.json') }))).toBe(`generated/manifest.json is missing: ${ADVICE}.`);
    // A directory where the manifest should be: read fails with EISDIR.
    expect(refusal(() => openBundledSource({ ...files, manifest: at('generated') }))).toBe(`generated/manifest.json could not be read (EISDIR): ${ADVICE}.`);
    writeFileSync(at('broken.json'), '{"files": ');
    expect(refusal(() => openBundledSource({ ...files, manifest: at('broken.json') }))).toBe(
      `generated/manifest.json is not a manifest the build wrote: ${ADVICE}.`,
    );
    const manifest = JSON.parse(readFileSync(files.manifest, 'utf8')) as { files: Record<string, unknown> };
    delete manifest.files['taxa.bin'];
    writeFileSync(at('other.json'), JSON.stringify(manifest));
    expect(refusal(() => openBundledSource({ ...files, manifest: at('other.json') }))).toBe(`generated/manifest.json does not list taxa.bin: ${ADVICE}.`);
  });

  it('naming the rebuild as it works in the install at hand', () => {
    expect(rebuildAdvice(true)).toBe(ADVICE);
    expect(rebuildAdvice(false)).toBe(
      'rebuild it where the development dependencies are installed (`npm ci && npm run build`) and ship generated/ again (this install has no development tools)',
    );
    // The development tools are installed here.
    expect(rebuildAdvice()).toBe(ADVICE);
    expect(unreadable(Object.assign(new Error('x'), { code: 'EACCES' }))).toBe('may not be read by this user (check its owner and mode)');
    expect(unreadable(Object.assign(new Error('x'), { code: 'EPERM' }))).toBe('may not be read by this user (check its owner and mode)');
    expect(unreadable(new Error('odd'))).toBe('could not be read (odd)');
  });
});

describe('a compiled dataset cut while the gateway serves it', () => {
  it('answers 503, turns readiness off naming the dataset, and is told once', async () => {
    const files = copied();
    const told: string[] = [];
    const gateway = gatewayOver(new BundledSource(openFileStore(files, 'sizes', (detail) => told.push(detail))));
    expect((await gateway.get('/readyz', {})).status).toBe(200);
    truncateSync(files.compiled, Math.floor(BYTES() / 10));
    const first = await gateway.get('/v2/species?q=abies');
    expect(first.status, await first.clone().text()).toBe(503);
    expect(((await first.json()) as { code: string }).code).toBe('svc/datasetUnavailable');
    expect((await gateway.get('/v2/plants?page=300')).status).toBe(503);
    const ready = await gateway.get('/readyz', {});
    expect(ready.status).toBe(503);
    expect(await ready.text()).toContain('dataset');
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(/^\d+ of \d+ bytes read at \d+$/);
  });
});
