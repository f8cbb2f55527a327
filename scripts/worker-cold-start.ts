/**
 * Measures the worker's cold start under `wrangler dev` (local workerd, offline): the time until
 * wrangler reports ready, the first request (which builds the gateway: dataset parse and indexes)
 * and the requests after it. Run `npm run seed:worker` first so the demo key is in local KV.
 *
 *   npx tsx scripts/worker-cold-start.ts [port]
 */
import { spawn } from 'node:child_process';

const port = Number(process.argv[2] ?? 8799);
const env = { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false', WRANGLER_HIDE_BANNER: 'true' };
const started = performance.now();
// Its own process group, so wrangler and the workerd it starts are stopped together.
const dev = spawn('node_modules/.bin/wrangler', ['dev', '--ip', '127.0.0.1', '--port', String(port)], { env, detached: true });
const stop = () => {
  if (dev.pid) process.kill(-dev.pid, 'SIGTERM');
};

try {
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`wrangler dev not ready in 60 s:\n${out}`)), 60_000);
    const read = (chunk: Buffer) => {
      out += chunk;
      if (out.includes('Ready on')) {
        clearTimeout(timer);
        resolve();
      }
    };
    dev.stdout.on('data', read);
    dev.stderr.on('data', read);
  });
  const ready = performance.now() - started;
  const timings: number[] = [];
  for (const path of ['/v2/species', '/v2/species?q=abies', '/v2/species/ABBA', '/v2/genus?page=2', '/v2/species?order[common_name]=desc']) {
    const t = performance.now();
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { Authorization: 'ApiKey demo-project-key' } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${path} -> ${res.status} (run npm run seed:worker first)`);
    timings.push(performance.now() - t);
  }
  const ms = (n: number) => `${Math.round(n)} ms`;
  console.log(`wrangler dev ready:  ${ms(ready)}`);
  console.log(`first request:       ${ms(timings[0]!)} (builds the gateway: dataset parse + indexes)`);
  console.log(`next requests:       ${timings.slice(1).map(ms).join(', ')}`);
} finally {
  stop();
}
