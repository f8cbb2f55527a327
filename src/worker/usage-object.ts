import { DurableObject } from 'cloudflare:workers';
import type { RecordedUsage } from '../migration/plan/usage-store';
import { type ClientUsage, mergeUsage, STORE_DAYS } from '../migration/plan/usage';

const USAGE_KEY = 'usage';

/**
 * The Durable Object behind `DurableObjectUsageStore`: one client's usage, reached by
 * `idFromName(subject)`, summed from what every isolate counted. It lives in the object's SQLite
 * storage through the synchronous KV API, so two reports cannot interleave and a count survives
 * the object being evicted.
 */
export class UsageObject extends DurableObject {
  add(delta: ClientUsage, at: string): void {
    const storage = this.ctx.storage.kv;
    const kept = storage.get<RecordedUsage>(USAGE_KEY);
    storage.put(USAGE_KEY, kept ? { usage: mergeUsage(kept.usage, delta, STORE_DAYS), since: kept.since } : { usage: delta, since: at });
  }

  usage(): RecordedUsage | null {
    return this.ctx.storage.kv.get<RecordedUsage>(USAGE_KEY) ?? null;
  }
}
