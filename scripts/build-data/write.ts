import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Dataset } from '../../src/core/records';
import { byString } from './order';

/** Stage 5: writes the fixture, checked to parse first; returns its size in bytes. */
export function writeFixture(outFile: string, dataset: Dataset): number {
  const text = serialize(dataset);
  JSON.parse(text); // sanity: must be valid JSON
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, text);
  return Buffer.byteLength(text);
}

/** Serialises the dataset: valid JSON, one record per line, keys in a fixed order. */
export function serialize(d: Dataset): string {
  const sources = Object.keys(d.species_sources).sort(byString);
  const ss = sources.length === 0 ? '{}' : `{\n${sources.map((k) => `${json(k)}:${json(d.species_sources[k])}`).join(',\n')}\n}`;
  return (
    `{"dataset":${json(d.dataset)},\n` +
    `"families":${jsonLines(d.families)},\n` +
    `"genus":${jsonLines(d.genus)},\n` +
    `"species":${jsonLines(d.species)},\n` +
    `"plants":${jsonLines(d.plants)},\n` +
    `"species_sources":${ss}}\n`
  );
}

function json(v: unknown): string {
  return JSON.stringify(v);
}

/** `[\n{...},\n{...}\n]` — valid JSON with one record per line. */
function jsonLines(items: unknown[]): string {
  return items.length === 0 ? '[]' : `[\n${items.map(json).join(',\n')}\n]`;
}
