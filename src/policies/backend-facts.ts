import type { Context } from 'hono';
import type { AppEnv } from '../env';
import type { BackendFacts } from '../services/metrics';
import type { SourceContext } from '../services/record-source';

/** This request's facts about its backend calls, made on first use and kept for the access line. */
export function backendFacts(c: Context<AppEnv>): BackendFacts {
  let facts = c.get('backend');
  if (!facts) {
    facts = { calls: 0, status: null, durationMs: 0, cache: null, answered: false };
    c.set('backend', facts);
  }
  return facts;
}

/** What a record source or backend client is told of the request: its id, and where to note what the backends did. */
export const sourceContext = (c: Context<AppEnv>): SourceContext => ({ requestId: c.get('requestId'), backend: backendFacts(c) });

/** The facts, if the request consulted a backend (called one, or looked in its cache). */
export function consultedBackend(c: Context<AppEnv>): BackendFacts | undefined {
  const facts = c.get('backend');
  return facts && (facts.calls > 0 || facts.cache !== null) ? facts : undefined;
}
