import type { Clock } from '../clock';

export type BreakerState = 'closed' | 'open' | 'half-open';

/**
 * A circuit breaker over the upstream: after `threshold` consecutive failures it opens and the
 * gateway stops calling (failing fast, or serving stale) for `cooldownMs`; then one probe request
 * may pass (half-open), and its outcome closes the breaker or opens it for another cool-down.
 */
export class CircuitBreaker {
  private failures = 0;
  private openedAt: number | undefined;
  private probing = false;

  constructor(
    private readonly threshold: number,
    private readonly cooldownMs: number,
    private readonly clock: Clock,
    private readonly onChange: (state: BreakerState) => void = () => {},
  ) {}

  get state(): BreakerState {
    if (this.openedAt === undefined) return 'closed';
    return this.probing || this.clock.now() >= this.openedAt + this.cooldownMs ? 'half-open' : 'open';
  }

  /** Whether a request may go upstream now; in half-open only the one probe may. */
  allow(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'open' || this.probing) return false;
    this.probing = true;
    return true;
  }

  /** Milliseconds until a probe may pass (0 when closed or half-open). */
  retryAfterMs(): number {
    if (this.openedAt === undefined) return 0;
    return Math.max(0, this.openedAt + this.cooldownMs - this.clock.now());
  }

  success(): void {
    const wasOpen = this.openedAt !== undefined;
    this.failures = 0;
    this.openedAt = undefined;
    this.probing = false;
    if (wasOpen) this.onChange('closed');
  }

  failure(): void {
    this.failures++;
    if (this.probing || (this.openedAt === undefined && this.failures >= this.threshold)) {
      this.openedAt = this.clock.now();
      this.probing = false;
      this.onChange('open');
    }
  }
}
