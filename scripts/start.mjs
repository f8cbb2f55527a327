/**
 * `npm start` and `npm run check`: the staleness check of `scripts/build.mjs`, then the built
 * gateway, in one Node process (a check in a process of its own cost a second Node start-up).
 * Arguments go to the gateway (`--check`). Production runs `node dist/node.js` directly. The Node
 * flags are package.json's: `--max-old-space-size` is the README's cache caps plus the dataset's
 * working set plus headroom (README, "Memory"), so a cache past its cap stops this process, not the machine.
 */
import { buildIfStale } from './build.mjs';

await buildIfStale();
const { run } = await import('../dist/node.js');
await run(process.argv.slice(2));
