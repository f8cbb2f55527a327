/**
 * Several built gateways in one Node process, for bench:http's observability case: each is its own
 * copy of a checkout's `dist/node.js` (imported under a distinct URL, so none shares a module's
 * state or compiled code with another), started by its `main()` with its own environment.
 *
 * Why: two processes of the same build can differ by 10 % or more in CPU per request for as long
 * as they live, while two copies in one process meet the same heap, collector and machine state;
 * a difference between copies in one process is the difference between their code.
 *
 *   BENCH_GATEWAYS='[{"dir": "/path/to/checkout", "env": {"PORT": "40001"}}, ...]' node <flags> bench/gateway-host.mjs
 *
 * Each gateway prints its `gateway listening` line as `npm start` does; they are told apart by PORT.
 * Plain JavaScript: it runs the built bundles under the production command line, without tsx.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const gateways = JSON.parse(process.env.BENCH_GATEWAYS ?? '[]');
if (gateways.length === 0) throw new Error('BENCH_GATEWAYS: no gateway to start');
const inherited = { ...process.env };

for (const [i, gateway] of gateways.entries()) {
  // A gateway reads its configuration from process.env once, as main() starts: each sees only its own.
  for (const name of Object.keys(process.env)) if (!(name in inherited)) delete process.env[name];
  Object.assign(process.env, inherited, gateway.env);
  const { main } = await import(`${pathToFileURL(join(gateway.dir, 'dist/node.js')).href}?gateway=${i}`);
  await main([]);
}
