/**
 * Where the gateway keeps what each client did, for the self-service plan (`GET /v2/migration-plan`)
 * and the `/metrics` counts: the interface, and the Node process's own store in memory. The
 * Workers store, one Durable Object per client, is `durable-object-usage-store.ts`.
 */
import { LRUCache } from 'lru-cache';
import type { MaybePromise } from '../../core/maybe-promise';
import { entryBytes, keyBytes } from '../../services/cache/entry-size';
import { type PlanStatus, planStatus } from './plan';
import { type AccessFacts, type ClientUsage, countRequest, counted, emptyUsage, hasPlan, STORE_DAYS } from './usage';

/** A client's usage and since when it was counted (RFC 3339). */
export interface RecordedUsage {
  usage: ClientUsage;
  since: string;
}

export interface UsageStore {
  /** Counts one answered request (the access line's facts); never throws, never waits. */
  record(facts: AccessFacts): void;
  /** What was counted of `subject`, or undefined when nothing was. */
  usage(subject: string): MaybePromise<RecordedUsage | undefined>;
}

/** Bytes the clients' usages may take in a Node process: some 1,800 clients of a few routes each (2.4 KB a usage, estimated). */
export const USAGE_BYTES = 4 * 1024 * 1024;

/** V8's cost of an object and of a counted member: generous (a usage of 7 routes and 100 pages estimated at 12 KB took 6-10 KB of heap on Node 24). */
const OBJECT_BYTES = 64;
const MEMBER_BYTES = 40;

const membersBytes = (counts: Readonly<Record<string, unknown>>) => {
  let bytes = OBJECT_BYTES;
  for (const key in counts) bytes += MEMBER_BYTES + keyBytes(key);
  return bytes;
};

/** What one usage costs in memory, estimated from its members (the store's unit of account). */
export function usageBytes(u: ClientUsage): number {
  let bytes = 12 * OBJECT_BYTES + keyBytes(u.subject) + 4 * keyBytes('2026-01-01T00:00:00.000Z');
  bytes += membersBytes(u.places) + membersBytes(u.bases) + membersBytes(u.routes) + membersBytes(u.errors);
  for (const route in u.walks) bytes += MEMBER_BYTES + keyBytes(route) + 4 * OBJECT_BYTES + membersBytes(u.walks[route]!.pages);
  bytes += u.v1_days.length * (MEMBER_BYTES + keyBytes('2026-01-01'));
  bytes += OBJECT_BYTES + membersBytes(u.compared.paths);
  return bytes;
}

/**
 * The usages of one Node process, since it started, bounded by `maxBytes` (the least recently
 * seen client is forgotten first). A usage is weighed again only when it grows a member, so
 * counting a request costs a map lookup and a few increments.
 */
export class MemoryUsageStore implements UsageStore {
  private readonly clients: LRUCache<string, ClientUsage>;

  constructor(
    private readonly since: string,
    maxBytes = USAGE_BYTES,
  ) {
    this.clients = new LRUCache({ maxSize: maxBytes, sizeCalculation: (u, key) => entryBytes(key, usageBytes(u)) });
  }

  record(f: AccessFacts): void {
    if (!counted(f)) return;
    const subject = f.subject!;
    const known = this.clients.get(subject);
    const u = known ?? emptyUsage(subject);
    if (!countRequest(u, f, STORE_DAYS) && known) return;
    // Weighed again: the LRU keeps the size it computed when the same object is set again.
    if (known) this.clients.delete(subject);
    this.clients.set(subject, u);
  }

  usage(subject: string): RecordedUsage | undefined {
    const usage = this.clients.get(subject);
    return usage && { usage, since: this.since };
  }

  /** Clients with a plan, by status (`/metrics`). */
  statuses(movedSince: string): Record<PlanStatus, number> {
    const counts: Record<PlanStatus, number> = { 'not started': 0, started: 0, moved: 0, 'at risk': 0 };
    for (const u of this.clients.values()) if (hasPlan(u)) counts[planStatus(u, movedSince)]++;
    return counts;
  }
}
