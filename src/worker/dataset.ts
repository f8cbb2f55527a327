import { BundledSource } from '../services/bundled/bundled-source';
import { pieceStore } from '../services/bundled/compiled/store';
// The pieces' index (about 60 KB, evaluated when the isolate starts); the pieces themselves are Workers Static Assets.
import index from '../../generated/taxa.index.json';
// The first chunk of every stored order (a Data module, about 100 KB): no fetch for them.
import hot from '../../generated/hot.bin';

let bundled: BundledSource | undefined;

/**
 * The record source over the compiled dataset, read piece by piece through the assets binding on
 * first use and kept within the piece budget: opening it parses nothing, and an isolate holds only
 * the pieces its requests touched (a page of default order: one chunk of records). Shared by every
 * gateway the isolate builds.
 */
export function bundledSource(assets: Fetcher): BundledSource {
  return (bundled ??= new BundledSource(
    pieceStore(
      index,
      async (name) => {
        // Any host: the binding serves the assets directory by path.
        const res = await assets.fetch(`https://assets.invalid/${name}`);
        if (!res.ok) throw new Error(`compiled dataset piece ${name}: ${res.status}`);
        return res.arrayBuffer();
      },
      new Uint8Array(hot),
    ),
  ));
}
