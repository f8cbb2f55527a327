import type { Dataset } from '../core/records';
import { parseDatasetLines } from '../services/bundled/dataset-lines';
// A Data module (wrangler.toml [[rules]]): the file's bytes, outside the JavaScript heap until parsed.
import bytes from '../../fixtures/taxa.json';

/** The bundled dataset, parsed on demand (the first request of an isolate), not at start-up. */
export function loadDataset(): Dataset {
  return parseDatasetLines(new Uint8Array(bytes));
}
