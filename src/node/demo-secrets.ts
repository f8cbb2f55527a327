/**
 * No demo secrets off loopback (docs/reference/operations.md). The bundled demo credentials are published
 * in the README, and a random per-process signing secret breaks every token at a restart or on
 * another instance: both serve only a gateway that this machine alone can reach. Listening
 * anywhere else without `CREDENTIALS_FILE`, or without a signing secret of 32 bytes or more,
 * stops start-up and the check, unless the operator says `DEMO_CREDENTIALS=allow`.
 */
import { BlockList, isIP } from 'node:net';
import { ConfigError, MIN_SIGNING_SECRET_BYTES, type Config } from '../config';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * Whether `host` reaches this machine only: 127.0.0.0/8 (also IPv4-mapped), `::1`, or
 * `localhost`. Any other name counts as reachable from elsewhere: what it resolves to can change.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost') return true;
  const family = isIP(bare);
  return family !== 0 && LOOPBACK.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}

/** What the demo secrets would stand in for: each setting that is missing or too weak. */
function missingSecrets(config: Pick<Config, 'credentialsFile' | 'tokenSigningSecret'>): Array<{ name: string; problem: string }> {
  const missing: Array<{ name: string; problem: string }> = [];
  if (!config.credentialsFile) missing.push({ name: 'CREDENTIALS_FILE', problem: 'is not set, so the demo credentials the README publishes would be served' });
  const bytes = config.tokenSigningSecret === undefined ? 0 : new TextEncoder().encode(config.tokenSigningSecret).length;
  if (bytes < MIN_SIGNING_SECRET_BYTES) {
    missing.push({
      name: 'TOKEN_SIGNING_SECRET',
      problem:
        bytes === 0
          ? 'is not set, so tokens would be signed with a random per-process secret (broken at every restart and between instances)'
          : `is ${bytes} bytes, fewer than ${MIN_SIGNING_SECRET_BYTES} (whoever guesses it can sign tokens)`,
    });
  }
  return missing;
}

/**
 * Throws the refusal for a gateway that would serve demo secrets beyond loopback; returns the
 * warning to log at every start when the operator allowed it (`DEMO_CREDENTIALS=allow`).
 */
export function demoSecretsBeyondLoopback(config: Pick<Config, 'host' | 'credentialsFile' | 'tokenSigningSecret' | 'demoCredentials'>): string | undefined {
  if (isLoopbackHost(config.host)) return undefined;
  const missing = missingSecrets(config);
  if (missing.length === 0) return undefined;
  const names = missing.map((m) => m.name).join(' and ');
  if (config.demoCredentials) {
    return `DEMO_CREDENTIALS=allow: listening on ${config.host} with demo secrets (${names}): anyone who can reach it can use them.`;
  }
  const first = missing[0]!;
  throw new ConfigError(
    first.name,
    `${first.problem}, and HOST=${config.host} is reachable from other machines: set ${names}${missing.length > 1 ? ' (a 32-byte secret: openssl rand -base64 32)' : ''}, listen on 127.0.0.1, or set DEMO_CREDENTIALS=allow for a demonstration`,
  );
}
