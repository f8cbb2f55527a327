import type { MaybePromise } from '../../core/maybe-promise';
import type { Looked, Principal } from './credential-store';

/**
 * `echo "$SECRET" | sha256sum` digests the secret followed by a newline, so a credential stored
 * that way never matches. After a secret has failed, its digest with a trailing newline tells that
 * mistake apart from a wrong secret; the operator is told which entry (never the secret), and the
 * request is still refused.
 */
export async function findNewlineDigestEntry(
  secret: string,
  digest: (text: string) => MaybePromise<string>,
  lookups: ReadonlyArray<(digest: string) => Looked<Principal>>,
): Promise<string | undefined> {
  const withNewline = await digest(`${secret}\n`);
  for (const lookup of lookups) {
    const principal = await lookup(withNewline);
    if (principal) return `${principal.kind}:${principal.id}`;
  }
  return undefined;
}

/** The warning line for an entry whose stored digest includes a trailing newline. */
export function newlineDigestWarning(entry: string): Record<string, unknown> {
  return {
    level: 'warn',
    message: `credential ${entry}: a presented secret matches its stored digest only with a trailing newline; the digest was made with echo, recompute it with printf %s "$SECRET" | sha256sum`,
    entry,
  };
}
