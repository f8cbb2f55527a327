/** The Node entry (staging, self-hosting): the only module that touches Node APIs. */
import { serve, type HttpBindings } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import { readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { pathToFileURL } from 'node:url';
import { createApp } from './app';
import { ConfigError, describeConfig, parseConfig, type Config } from './config';
import type { Dataset } from './core/records';
import type { DocsAssets } from './openapi/docs-page';
import { BundledSource } from './services/bundled/bundled-source';
import { MemoryCredentialStore, parseCredentialDocument } from './services/credentials/credential-store';
import { DEMO_CREDENTIALS } from './services/credentials/demo-credentials';
import { systemClock } from './services/clock';
import type { ConnectionInfo } from './services/connection';
import { assembleServices, consoleLog, randomSecret } from './services/index';
import { createUpstreamSource } from './services/upstream/index';

const FIXTURE = new URL('../fixtures/taxa.json', import.meta.url);

const warn = (message: string) => console.log(JSON.stringify({ level: 'warn', message }));

/** Reads the bundled dataset from `fixtures/`. */
export function loadDataset(): Dataset {
  return JSON.parse(readFileSync(FIXTURE, 'utf8')) as Dataset;
}

/** The docs page's UI files from the installed `swagger-ui-dist`, read on first use. */
export function nodeDocsAssets(): DocsAssets {
  const dir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const file = (name: string) => {
    let text: string | undefined;
    return () => (text ??= readFileSync(join(dir, name), 'utf8'));
  };
  return { script: file('swagger-ui-bundle.js'), style: file('swagger-ui.css') };
}

/** TLS and the peer address from the Node socket, for the transport policy (CONTRACT section 9). */
export function nodeConnection(c: Context): ConnectionInfo {
  const { incoming } = c.env as HttpBindings;
  return { tls: (incoming.socket as Partial<TLSSocket>).encrypted === true, remoteAddress: getConnInfo(c).remote.address };
}

function credentialStore(config: Config) {
  if (!config.credentialsFile) {
    warn('CREDENTIALS_FILE is not set: serving with the bundled demo credentials.');
    return new MemoryCredentialStore(DEMO_CREDENTIALS);
  }
  try {
    return new MemoryCredentialStore(parseCredentialDocument(JSON.parse(readFileSync(config.credentialsFile, 'utf8'))));
  } catch (err) {
    throw new ConfigError('CREDENTIALS_FILE', `could not be loaded: ${(err as Error).message}`);
  }
}

export function main(): void {
  const started = performance.now();
  const config = parseConfig(process.env);
  if (!config.tokenSigningSecret) warn('TOKEN_SIGNING_SECRET is not set: tokens are signed with a random per-process secret.');
  // Upstream mode (CONTRACT section 12) never loads the bundled dataset.
  const bundled = config.upstreamUrl ? undefined : new BundledSource(loadDataset());
  const source = bundled ?? createUpstreamSource(config, { clock: systemClock, log: consoleLog });
  const services = assembleServices(config, { source, credentials: credentialStore(config), fallbackSigningSecret: randomSecret(), connection: nodeConnection, docsAssets: nodeDocsAssets() });
  const app = createApp(config, services);

  const server = serve({ fetch: app.fetch, port: config.port }, (info) => {
    console.log(JSON.stringify({
      level: 'info',
      message: 'gateway listening',
      port: info.port,
      mode: bundled ? 'bundled' : 'upstream',
      records: bundled?.counts(),
      startup_ms: Math.round(performance.now() - started),
      config: describeConfig(config),
    }));
  });

  // Drain in-flight requests on SIGTERM/SIGINT, then exit.
  const shutdown = (signal: string) => {
    console.log(JSON.stringify({ level: 'info', message: `${signal}: draining` }));
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(1), 10_000).unref();
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

// Started as a program (`npm start`), not imported (tests import `nodeConnection`).
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  try {
    main();
  } catch (err) {
    // A bad setting stops start-up with one line naming the variable, never a stack or a secret.
    if (!(err instanceof ConfigError)) throw err;
    console.error(err.message);
    process.exit(1);
  }
}
