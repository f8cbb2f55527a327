import { readFileSync } from 'node:fs';
import type { Dataset } from '../../src/core/records';
import { BundledSource } from '../../src/services/bundled/bundled-source';
import { gatewayOver, type TestApp, type TestAppOptions } from './gateway';

export { DEMO, json, walkPages } from '../suites/client';
export { NOW, type TestApp } from './gateway';

/** The committed fixture, read once per test file. */
export const dataset: Dataset = JSON.parse(readFileSync(new URL('../../fixtures/taxa.json', import.meta.url), 'utf8'));

let bundled: BundledSource | undefined;
/** The bundled source over the real fixture, indexed once per test file. */
export function bundledSource(): BundledSource {
  return (bundled ??= new BundledSource(dataset));
}

/** A gateway in process over the fixture compiled in memory (`gatewayOver` in gateway.ts). */
export function testApp(options: TestAppOptions = {}): TestApp {
  return gatewayOver(bundledSource(), options);
}
