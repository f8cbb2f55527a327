import { readFileSync } from 'node:fs';
import type { Dataset } from '../../src/core/records';
import { BundledSource } from '../../src/services/bundled/bundled-source';
import { diskSource, gatewayOver, type TestApp, type TestAppOptions } from './gateway';

export { DEMO, json, walkPages } from '../suites/client';
export { NOW, type TestApp } from './gateway';

let parsed: Dataset | undefined;
/** The committed fixture, parsed once per test file, on first use (most files never read it). */
const fixture = (): Dataset => (parsed ??= JSON.parse(readFileSync(new URL('../../fixtures/taxa.json', import.meta.url), 'utf8')));
const KEYS = ['dataset', 'families', 'genus', 'species', 'plants', 'species_sources'] as const satisfies readonly (keyof Dataset)[];

/** The committed fixture (`fixtures/taxa.json`): the oracle tests compare the gateway's answers with. */
export const dataset: Dataset = Object.defineProperties(
  {} as Dataset,
  Object.fromEntries(KEYS.map((key) => [key, { get: () => fixture()[key], enumerable: true }])),
);

let inMemory: BundledSource | undefined;
/**
 * The bundled source over the fixture compiled in memory, once per test file (seconds): only for
 * tests whose subject is the compilation itself, which compare it with what is on disk.
 */
export function compiledInMemory(): BundledSource {
  return (inMemory ??= new BundledSource(fixture()));
}

/** The bundled source over the compiled dataset in `generated/`, read in place as `src/node.ts` reads it. */
export function bundledSource(): BundledSource {
  return diskSource();
}

/** A gateway in process over the compiled dataset, read in place (`gatewayOver` in gateway.ts). */
export function testApp(options: TestAppOptions = {}): TestApp {
  return gatewayOver(bundledSource(), options);
}
