/**
 * A gateway in process over a record source the caller gives. `testApp` (harness.ts) builds it
 * over the fixture compiled in memory; `diskApp` over the compiled dataset in `generated/`, read in
 * place, as `src/node.ts` does. This module reads no fixture: a test file whose subject is not the
 * dataset (token requests, probes, routes) builds its gateway in well under a second instead of
 * the fixture's parse and compilation (some 20 s on a busy machine), which matters where the file
 * runs again for every mutant of a mutation run.
 */
import { createApp } from '../../src/app';
import { parseConfig, type Config, type ConfigVars } from '../../src/config';
import type { Services } from '../../src/env';
import { fileStore } from '../../src/node';
import { nodeBackendFetch } from '../../src/node/backend-fetch';
import { BundledSource } from '../../src/services/bundled/bundled-source';
import { ManualClock } from '../../src/services/clock';
import { MemoryCredentialStore } from '../../src/services/credentials/credential-store';
import { DEMO_CREDENTIALS } from '../../src/services/credentials/demo-credentials';
import { assembleServices } from '../../src/assemble-services';
import type { RecordSource } from '../../src/services/record-source';
import { DEMO, type SuiteClient } from '../suites/client';
import { validatorFor } from './openapi-validator';
import type { LogLine } from '../../src/services/log';
import { nodeDocsAssets } from '../../src/node/docs-assets';

/** A date inside every window (after the HTTPS cut-off, before the v1 sunset). */
export const NOW = '2026-11-21T12:00:00Z';

export interface TestApp extends SuiteClient {
  app: ReturnType<typeof createApp>;
  config: Config;
  services: Services;
  clock: ManualClock;
  logs: LogLine[];
}

/** The Node entry's client for backend calls, one pool for the test file. */
export const backendFetch = nodeBackendFetch();

export interface TestAppOptions {
  env?: ConfigVars;
  now?: string;
  services?: Partial<Services>;
  describes?: boolean;
}

/**
 * A gateway in process over `source`. Every response `get` returns is first checked against the
 * OpenAPI description of its version (`describes: false` for a fake upstream whose records are
 * not canonical, which the gateway passes through as they are).
 */
export function gatewayOver(source: RecordSource, options: TestAppOptions = {}): TestApp {
  // Limits high enough that suites walking thousands of pages on a stopped clock are not
  // throttled; the rate-limit tests set their own.
  const config = parseConfig({ TOKEN_SIGNING_SECRET: 'test-signing-secret', RATE_LIMIT_PER_MINUTE: '1000000', ...options.env });
  const clock = new ManualClock(Date.parse(options.now ?? NOW));
  const logs: LogLine[] = [];
  const services: Services = {
    ...assembleServices(config, {
      source,
      credentials: new MemoryCredentialStore(DEMO_CREDENTIALS),
      clock,
      log: (line) => logs.push(line),
      fallbackSigningSecret: 'unused',
      docsAssets: nodeDocsAssets(),
      // The Node entry's backend client, as a gateway process has it (exactly the documented headers).
      backendFetch,
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

let onDisk: BundledSource | undefined;
/** The source over the compiled dataset on disk (`generated/`, which the tests' global setup builds). */
export function diskSource(): BundledSource {
  return (onDisk ??= new BundledSource(fileStore()));
}

/** A gateway over the compiled dataset on disk. */
export function diskApp(options: TestAppOptions = {}): TestApp {
  return gatewayOver(diskSource(), options);
}
