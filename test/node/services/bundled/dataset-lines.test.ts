import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseDatasetLines } from '../../../../src/services/bundled/dataset-lines';
import { dataset } from '../../../support/harness';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('parseDatasetLines: the bundled dataset without one giant string', () => {
  it('reads the committed fixture exactly as JSON.parse does', () => {
    const file = readFileSync(new URL('../../../../fixtures/taxa.json', import.meta.url));
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

  it('reads sections in any order: an object section before an array, an array last, blank lines between, no final newline', () => {
    const text = [
      '{"dataset":{"last_modified":"2026-03-18T00:00:00Z","sources":[]},',
      '',
      '"species_sources":{',
      '"A":["x"]',
      '},',
      '',
      '"species":[',
      '{"id":"A"}',
      ']',
      '}',
    ].join('\n');
    const expected = { dataset: { last_modified: '2026-03-18T00:00:00Z', sources: [] }, species_sources: { A: ['x'] }, species: [{ id: 'A' }] };
    expect(parseDatasetLines(bytes(text))).toEqual(expected);
    expect(parseDatasetLines(bytes(`${text}\n`))).toEqual(expected);
  });

  it('refuses another layout rather than guess, naming the first line that is not in it', () => {
    const pretty = JSON.stringify({ dataset: { last_modified: 'x', sources: [] }, species: [{ id: 'A' }] }, null, 2);
    // Line 1 is the opening `{` alone: the layout opens with the dataset line.
    expect(() => parseDatasetLines(bytes(pretty))).toThrow('dataset line 1 is not in the one-record-per-line layout');
    const late = ['{"dataset":{"last_modified":"x","sources":[]},', '"species":[', ']', 'species: []', '}'].join('\n');
    expect(() => parseDatasetLines(bytes(late))).toThrow('dataset line 4 is not in the one-record-per-line layout');
  });
});
