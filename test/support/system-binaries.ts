/**
 * Tests whose subject is a system service (redis-server, prometheus) run it for real; on a machine
 * without it they are skipped, and say so loudly in the test output. `.ci/run` installs the
 * Debian packages, so CI always runs them.
 */
import { spawnSync } from 'node:child_process';

/** Why tests that need `command` are skipped here, or undefined when it is installed. */
export function missingBinary(command: string, debianPackage: string): string | undefined {
  const probe = spawnSync(command, ['--version'], { stdio: 'ignore' });
  if (!probe.error) return undefined;
  const reason = `SKIPPED: ${command} is not installed (Debian package ${debianPackage}; .ci/run installs it)`;
  console.warn(`\n*** ${reason} ***\n`);
  return reason;
}
