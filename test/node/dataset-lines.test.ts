import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseDatasetLines } from '../../src/services/bundled/dataset-lines';
import { dataset } from '../support/harness';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('parseDatasetLines: the bundled dataset without one giant string', () => {
  it('reads the committed fixture exactly as JSON.parse does', () => {
    const file = readFileSync(new URL('../../fixtures/taxa.json', import.meta.url));
    expect(parseDatasetLines(new Uint8Array(file))).toEqual(dataset);
  });

  it('reads a small document in the same layout, empty sections included', () => {
    const text = [
      '{"dataset":{"last_modified":"2026-03-18T00:00:00Z","sources":[]},',
      '"families":[',
      '],',
      '"species":[',
      '{"id":"A","n":"×, ü"},',
      '{"id":"B","n":"b"}',
      '],',
      '"species_sources":{',
      '"A":["x"],',
      '"B":[]',
      '}}',
      '',
    ].join('\n');
    expect(parseDatasetLines(bytes(text))).toEqual(JSON.parse(text));
  });

  it('refuses another layout rather than guess', () => {
    const pretty = JSON.stringify({ dataset: { last_modified: 'x', sources: [] }, species: [{ id: 'A' }] }, null, 2);
    expect(() => parseDatasetLines(bytes(pretty))).toThrow(/not in the one-record-per-line layout/);
  });
});
