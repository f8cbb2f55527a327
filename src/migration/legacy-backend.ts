import type { RequestTrace } from '../core/request-trace';
import type { Readiness } from '../services/record-source';

/** What the legacy backend answered: a v1 body (a record, a page, or `{statusCode, message}`). */
export interface LegacyAnswer {
  status: number;
  body: unknown;
  lastModified: string | null;
}

/** The existing v1 backend, behind an interface so tests and both runtimes can supply one. */
export interface LegacyBackend {
  /** `target` is a path and query below `LEGACY_V1_URL` (`/species?q=oak`). Throws upstream ApiErrors. */
  get(target: string, ctx: BackendContext): Promise<LegacyAnswer>;
  /** Whether it answers now, with the gateway's credential (for `/readyz` while it answers v1). */
  ready?(ctx: BackendContext): Promise<Readiness>;
}

/** The request a call is made for: its id, and its trace, which the call continues and notes itself on. */
export interface BackendContext {
  requestId: string;
  trace?: RequestTrace;
}
