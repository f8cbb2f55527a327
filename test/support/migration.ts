/** A gateway in process with migration controls, over a legacy backend on loopback. */
import type { ConfigVars } from '../../src/config';
import type { LogLine } from '../../src/services/log';
import { testApp, type TestApp } from './harness';
import { LEGACY_AUTHORIZATION, type LegacyV1 } from './legacy-v1';

export interface MigrationApp extends TestApp {
  /** Resolves once every comparison started so far has written its log lines. */
  settled(): Promise<void>;
  /** The log lines with this `message`. */
  lines(message: string): LogLine[];
}

export function migrationApp(legacy: LegacyV1, env: ConfigVars = {}): MigrationApp {
  const tasks: Promise<void>[] = [];
  const t = testApp({
    env: { LEGACY_V1_URL: legacy.url, LEGACY_V1_AUTHORIZATION: LEGACY_AUTHORIZATION, UPSTREAM_TIMEOUT_MS: '1000', ...env },
    // As on Node: the task starts after the caller's response, on a later turn of the event loop.
    services: { afterResponse: (_c, task) => void tasks.push(new Promise((resolve) => setTimeout(resolve, 0)).then(task)) },
  });
  return {
    ...t,
    async settled() {
      while (tasks.length > 0) await Promise.all(tasks.splice(0));
    },
    lines: (message) => t.logs.filter((l) => l.message === message),
  };
}
