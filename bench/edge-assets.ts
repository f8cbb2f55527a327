/**
 * `npm run bench:edge-assets`: how the local runtime's assets binding answers pieces asked for at
 * once, against the same number asked for one after another. A first search at the edge reads its
 * pieces in at most two rounds, each asked for at once; how long a round takes in `bench:edge` is
 * this binding's answer to it.
 *
 * A worker of a few lines (no gateway) with wrangler.toml's assets binding over `generated/assets`,
 * in workerd through Miniflare as `bench:edge` runs the gateway. For each count of pieces (1 to 24,
 * the first-search bound), `BENCH_TRIALS` requests ask for that many record chunks at once
 * and as many ask for them one after another, in turns, each request for pieces no request before
 * it asked for; the services are started by requests before the measured ones. Printed: the median
 * time from the first fetch to the last piece's bytes, by the isolate's clock (which moves when I/O
 * completes), of each, and their ratio (1: the binding answers a round's pieces one after another;
 * 1/n: all at once). Not part of `npm test`.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { convertV4MiniflareOptions, Miniflare } from 'miniflare';
import { unstable_getMiniflareWorkerOptions, unstable_readConfig } from 'wrangler';
import { freePort } from '../tools/processes';
import { median } from './median';

const TRIALS = Number(process.env.BENCH_TRIALS ?? 15);
const COUNTS = [1, 2, 5, 10, 20, 24];
const HERE = fileURLToPath(new URL('..', import.meta.url));

/** Asks the assets binding for `?pieces=a,b,...`, `&serial` one after another, else all at once; answers the bytes read and how long they took. */
const WORKER = `
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const names = (url.searchParams.get('pieces') ?? '').split(',').filter(Boolean);
    let bytes = 0;
    const started = performance.now();
    const one = async (name) => {
      const res = await env.ASSETS.fetch('https://assets.invalid/' + name);
      if (!res.ok) throw new Error(name + ': ' + res.status);
      bytes += (await res.arrayBuffer()).byteLength;
    };
    if (url.searchParams.has('serial')) for (const name of names) await one(name);
    else await Promise.all(names.map(one));
    // The isolate's clock moves when I/O completes: this is the time the pieces took to arrive.
    return Response.json({ bytes, ms: performance.now() - started });
  },
};`;

async function main(): Promise<void> {
  // wrangler.toml's assets binding as `wrangler dev` configures it (directory, binding name, router).
  const config = join(HERE, 'wrangler.toml');
  const { assets } = unstable_getMiniflareWorkerOptions(config).workerOptions as { assets: { directory: string } };
  const compatibilityDate = unstable_readConfig({ config }).compatibility_date;
  const port = await freePort();
  const mf = new Miniflare(convertV4MiniflareOptions({ modules: true, script: WORKER, compatibilityDate, assets, host: '127.0.0.1', port }));
  await mf.ready;
  // Record chunks, each asked for once: the species' (about 11 KB, what a first search's second round
  // reads) first, then the other resources' (smaller).
  const records = readdirSync(assets.directory).filter((name) => name.includes('.records.'));
  const unread = [...records.filter((n) => n.startsWith('species.')), ...records.filter((n) => !n.startsWith('species.'))];
  /** How long `count` pieces not asked for before took to arrive, by the isolate's clock. */
  const timed = async (count: number, serial: boolean): Promise<number> => {
    if (unread.length < count) throw new Error(`BENCH_TRIALS=${TRIALS}: more pieces asked for than the dataset has`);
    const pieces = unread.splice(0, count);
    const res = await fetch(`http://127.0.0.1:${port}/?pieces=${pieces.join(',')}${serial ? '&serial' : ''}`);
    const body = await res.text();
    if (res.status !== 200) throw new Error(`${count} pieces: ${res.status} ${body.slice(0, 200)}`);
    return (JSON.parse(body) as { ms: number }).ms;
  };
  try {
    // Starts the router, assets and storage services, and this isolate's code paths.
    for (let i = 0; i < 5; i++) await timed(2, i % 2 === 0);
    console.log(`assets binding, ${TRIALS} requests each (median ms from the first fetch to the last piece, by the isolate's clock)`);
    console.log('| pieces | at once | one after another | ratio | at once, per piece |');
    console.log('|---:|---:|---:|---:|---:|');
    for (const count of COUNTS) {
      const atOnce: number[] = [];
      const oneByOne: number[] = [];
      for (let i = 0; i < TRIALS; i++) {
        atOnce.push(await timed(count, false));
        oneByOne.push(await timed(count, true));
      }
      const [a, s] = [median(atOnce), median(oneByOne)];
      console.log(`| ${count} | ${a.toFixed(1)} | ${s.toFixed(1)} | ${(a / s).toFixed(2)} | ${(a / count).toFixed(2)} |`);
    }
  } finally {
    await mf.dispose();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
