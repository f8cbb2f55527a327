import { BundledSource } from '../services/bundled/bundled-source';
import { parseDatasetLines } from '../services/bundled/dataset-lines';
// A Data module (wrangler.toml [[rules]]): the file's bytes, outside the JavaScript heap until parsed.
import bytes from '../../fixtures/taxa.json';

let bundled: BundledSource | undefined;

/**
 * The record source over the bundled dataset, parsed and indexed on first use (an isolate's first
 * request, not its start-up) and then shared by every gateway the isolate builds.
 */
export function bundledSource(): BundledSource {
  return (bundled ??= new BundledSource(parseDatasetLines(new Uint8Array(bytes))));
}
