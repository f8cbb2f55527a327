import type { RecordedUsage, UsageStore } from './usage-store';
import { type AccessFacts, type ClientUsage, countRequest, counted, emptyUsage, STORE_DAYS } from './usage';

/** One client's usage as the store reaches it: the RPC stub of its Durable Object. */
export interface UsageCounter {
  /** Adds what an isolate counted since its last report. */
  add(delta: ClientUsage, at: string): Promise<void>;
  usage(): Promise<RecordedUsage | null>;
}

export interface DurableObjectUsageOptions {
  /** Runs a task after the response, keeping the runtime alive for it (Workers: `waitUntil`). */
  defer(task: Promise<unknown>): void;
  /** A report to an object that failed: those counts are lost, nothing else is. */
  failed(subject: string, err: unknown): void;
  now(): string;
}

/**
 * Usages held by one Durable Object per client, wherever its requests landed. No request waits
 * on an object: the isolate counts into deltas of its own, and one report at a time (`defer`,
 * after the response) sends every client's delta to its object; what is counted meanwhile waits
 * for the next, so a busy isolate sends one call per client per round trip, not per request.
 * Reading a plan sends the reader's own delta first, so it sees its last call.
 */
export class DurableObjectUsageStore implements UsageStore {
  private pending = new Map<string, ClientUsage>();
  private reporting: Promise<void> | undefined;

  constructor(
    private readonly counterFor: (subject: string) => UsageCounter,
    private readonly options: DurableObjectUsageOptions,
  ) {}

  record(f: AccessFacts): void {
    if (!counted(f)) return;
    const subject = f.subject!;
    let delta = this.pending.get(subject);
    if (!delta) this.pending.set(subject, (delta = emptyUsage(subject)));
    countRequest(delta, f, STORE_DAYS);
    if (!this.reporting) this.options.defer((this.reporting = this.report()));
  }

  async usage(subject: string): Promise<RecordedUsage | undefined> {
    await this.reporting;
    const delta = this.pending.get(subject);
    if (delta) {
      this.pending.delete(subject);
      await this.send(subject, delta);
    }
    return (await this.counterFor(subject).usage()) ?? undefined;
  }

  /** Sends every delta, then whatever was counted while they went, until none is left. */
  private async report(): Promise<void> {
    while (this.pending.size > 0) {
      const deltas = this.pending;
      this.pending = new Map();
      await Promise.all([...deltas].map(([subject, delta]) => this.send(subject, delta)));
    }
    this.reporting = undefined;
  }

  private async send(subject: string, delta: ClientUsage): Promise<void> {
    try {
      await this.counterFor(subject).add(delta, this.options.now());
    } catch (err) {
      this.options.failed(subject, err);
    }
  }
}
