import { readFileSync } from 'node:fs';
import { createApp } from '../../src/app';
import { parseConfig, type Config, type ConfigVars } from '../../src/config';
import type { Dataset } from '../../src/core/records';
import type { LogLine, Services } from '../../src/env';
import { BundledSource } from '../../src/services/bundled/bundled-source';
import { ManualClock } from '../../src/services/clock';
import { MemoryCredentialStore } from '../../src/services/credentials/credential-store';
import { DEMO_CREDENTIALS } from '../../src/services/credentials/demo-credentials';
import { nodeDocsAssets } from '../../src/node';
import { assembleServices } from '../../src/services/index';
import { DEMO, type SuiteClient } from '../suites/client';
import { validatorFor } from './openapi-validator';

export { DEMO, json, walkPages } from '../suites/client';

/** The committed fixture, read once per test file. */
export const dataset: Dataset = JSON.parse(readFileSync(new URL('../../fixtures/taxa.json', import.meta.url), 'utf8'));

let bundled: BundledSource | undefined;
/** The bundled source over the real fixture, indexed once per test file. */
export function bundledSource(): BundledSource {
  return (bundled ??= new BundledSource(dataset));
}

/** A date inside every window (after the HTTPS cut-off, before the v1 sunset). */
export const NOW = '2026-11-21T12:00:00Z';

export interface TestApp extends SuiteClient {
  app: ReturnType<typeof createApp>;
  config: Config;
  services: Services;
  clock: ManualClock;
  logs: LogLine[];
}

/**
 * A gateway in process. Every response `get` returns is first checked against the OpenAPI
 * description of its version (`describes: false` for a fake upstream whose records are not
 * canonical, which the gateway passes through as they are).
 */
export function testApp(options: { env?: ConfigVars; now?: string; services?: Partial<Services>; describes?: boolean } = {}): TestApp {
  // Limits high enough that suites walking thousands of pages on a stopped clock are not
  // throttled; the rate-limit tests set their own.
  const config = parseConfig({ TOKEN_SIGNING_SECRET: 'test-signing-secret', RATE_LIMIT_PER_MINUTE: '1000000', ...options.env });
  const clock = new ManualClock(Date.parse(options.now ?? NOW));
  const logs: LogLine[] = [];
  const services: Services = {
    ...assembleServices(config, {
      source: bundledSource(),
      credentials: new MemoryCredentialStore(DEMO_CREDENTIALS),
      clock,
      log: (line) => logs.push(line),
      fallbackSigningSecret: 'unused',
      docsAssets: nodeDocsAssets(),
      // The backend clients assembled here record into the test's metrics too.
      ...(options.services?.metrics ? { metrics: options.services.metrics } : {}),
    }),
    ...options.services,
  };
  const app = createApp(config, services);
  const validator = options.describes === false ? undefined : validatorFor(config);
  const get = async (path: string, headers: Record<string, string> = { Authorization: DEMO.key }, init: RequestInit = {}) => {
    const url = new URL(path, 'https://localhost').toString();
    const res = await app.request(url, { ...init, headers });
    return validator ? validator.check(init.method ?? 'GET', url, res) : res;
  };
  return { app, config, services, clock, logs, get };
}
