/**
 * The gauges of the Node metrics that are read when scraped or set once: the breakers' states,
 * the build, the start time, the credential file's reloads (src/node/prometheus.ts registers them).
 */
import type { Registry } from 'prom-client';
import type { BackendName, BreakerPosition } from '../services/metrics';
import { MOVED_AFTER_MS, type PlanStatus } from '../migration/plan/plan';

/** prom-client's module: loaded by `prometheusMetrics` only when metrics are on. */
export type PromClient = typeof import('prom-client');

const BREAKER_POSITIONS: readonly BreakerPosition[] = ['closed', 'open', 'half-open'];

/** What the credential file's reloads say when scraped. */
export type CredentialReloads = () => { successful: boolean; lastSuccessMs: number };

/** The breakers' states (read when scraped), the build and the start time. */
export function processGauges(
  client: PromClient,
  registers: Registry[],
  breakers: ReadonlyMap<BackendName, () => BreakerPosition>,
  build: { version: string; dataset: string },
): void {
  const { Gauge } = client;
  new Gauge({
    name: 'gateway_breaker_state',
    help: 'Circuit breaker of each backend: 1 for its current state (closed, open, half-open), 0 for the others.',
    labelNames: ['backend', 'state'],
    registers,
    // Read when scraped: a breaker turns half-open by time alone, with nothing to report it.
    collect() {
      for (const [backend, read] of breakers) {
        const now = read();
        for (const state of BREAKER_POSITIONS) this.set({ backend, state }, state === now ? 1 : 0);
      }
    },
  });
  new Gauge({
    name: 'gateway_build_info',
    help: 'Always 1: the gateway version and dataset version as labels.',
    labelNames: ['version', 'dataset'],
    registers,
  }).set(build, 1);
  new Gauge({
    name: 'gateway_start_time_seconds',
    help: 'When the gateway started, in seconds since the Unix epoch.',
    registers,
  }).set(Math.round(Date.now() / 1000));
}

/**
 * The credential file's reloads, read when scraped (Node): named and shaped as Prometheus's own
 * `prometheus_config_last_reload_successful` and `..._success_timestamp_seconds`, so the same
 * alert (`== 0`) catches a revoke the gateway could not apply.
 */
export function credentialReloadGauges(client: PromClient, registry: Registry, read: CredentialReloads): void {
  const { Gauge } = client;
  const registers = [registry];
  new Gauge({
    name: 'gateway_credentials_last_reload_successful',
    help: 'Whether the last read of CREDENTIALS_FILE (at start, on SIGHUP or on a change) was applied: 1, or 0 when it was refused.',
    registers,
    collect() {
      this.set(read().successful ? 1 : 0);
    },
  });
  new Gauge({
    name: 'gateway_credentials_last_reload_success_timestamp_seconds',
    help: 'When CREDENTIALS_FILE was last read and applied, in seconds since the Unix epoch.',
    registers,
    collect() {
      this.set(read().lastSuccessMs / 1000);
    },
  });
}

/** Clients with a migration plan by status, for a `moved since` instant (RFC 3339). */
export type MigrationStatuses = (movedSince: string) => Record<PlanStatus, number>;

/**
 * The v1 clients this process counted, by migration status (not started, started, moved: no v1
 * call in 7 days, at risk: brownout 410s), read when scraped. The subjects are never labels.
 */
export function migrationGauge(client: PromClient, registry: Registry, read: MigrationStatuses): void {
  new client.Gauge({
    name: 'gateway_v1_clients',
    help: 'Clients that called v1 since the process started, by migration status (moved: no v1 call in 7 days).',
    labelNames: ['status'],
    registers: [registry],
    collect() {
      const counts = read(new Date(Date.now() - MOVED_AFTER_MS).toISOString());
      for (const [status, n] of Object.entries(counts)) this.set({ status }, n);
    },
  });
}
