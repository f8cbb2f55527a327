import type { Dataset } from '../../core/records';

const NEWLINE = 10;
const SECTION = /^\{?"([a-z_]+)":([[{])$/;

/**
 * Parses the bundled dataset from its UTF-8 bytes one line at a time. The fixture is written with
 * one record per line (fixtures/README.md), so this never holds the whole text as one string: on
 * Workers that string alone would be ~53 MB of a 128 MB isolate.
 */
export function parseDatasetLines(bytes: Uint8Array): Dataset {
  const decoder = new TextDecoder();
  const root: Record<string, unknown> = {};
  let array: unknown[] | undefined;
  let object: Record<string, unknown> | undefined;
  let lineNo = 0;
  for (let start = 0; start < bytes.length; ) {
    const newline = bytes.indexOf(NEWLINE, start);
    const end = newline < 0 ? bytes.length : newline;
    let line = decoder.decode(bytes.subarray(start, end));
    start = end + 1;
    lineNo++;
    if (line.endsWith(',')) line = line.slice(0, -1);
    if (array) {
      if (line === ']') array = undefined;
      else array.push(JSON.parse(line));
    } else if (object) {
      if (line === '}' || line === '}}') object = undefined;
      else Object.assign(object, JSON.parse(`{${line}}`));
    } else if (SECTION.test(line)) {
      const [, name, open] = SECTION.exec(line)!;
      root[name!] = open === '[' ? (array = []) : (object = {});
    } else if (line.startsWith('{"dataset":')) {
      Object.assign(root, JSON.parse(`${line}}`));
    } else if (line !== '' && line !== '}') {
      throw new Error(`dataset line ${lineNo} is not in the one-record-per-line layout`);
    }
  }
  return root as unknown as Dataset;
}
