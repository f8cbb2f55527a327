/**
 * `npm start` and `npm run check`: the staleness check of `scripts/build.mjs`, then the built
 * gateway, in one Node process (a check in a process of its own cost a second Node start-up).
 * Arguments go to the gateway (`--check`, `--help`). Production runs `node dist/node.js` directly. The
 * Node flags are package.json's: `--max-old-space-size` is the caches' caps plus the dataset's
 * working set plus headroom (docs/memory.md), so a cache past its cap stops this process, not the machine.
 */
import { buildIfStale } from './build.mjs';

/** How often the gateway looks whether npm, its parent, is still there. */
const PARENT_POLL_MS = 250;

/**
 * Under `npm start` the `exec` in the script makes npm the gateway's parent. npm passes SIGINT and
 * SIGTERM on, but dies of SIGHUP (an operator reloading the one pid they know): the gateway,
 * orphaned, would go on holding the port with nothing left to stop it through npm. So when the
 * parent goes, the gateway stops as on SIGTERM (drains, then exits). Node has no parent-death
 * signal, so the parent pid is polled; a look costs one system call.
 */
function stopWhenNpmEnds() {
  const npm = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === npm) return;
    clearInterval(timer);
    const message = `npm (pid ${npm}) ended: stopping the gateway, which it started; a reload is SIGHUP to the gateway's pid ${process.pid}, never to npm`;
    process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), level: 'warn', message })}\n`);
    process.kill(process.pid, 'SIGTERM');
  }, PARENT_POLL_MS);
  // Watching never keeps the process alive on its own.
  timer.unref();
}

await buildIfStale();
if (process.env.npm_lifecycle_event === 'start') stopWhenNpmEnds();
const { run } = await import('../dist/node.js');
await run(process.argv.slice(2));
