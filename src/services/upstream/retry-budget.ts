/**
 * Retries may add at most `ratio` extra requests per request (a token bucket: each first attempt
 * deposits `ratio`, each retry withdraws 1, the bucket holds at most `burst`), so during an outage
 * retries cannot multiply the load on a struggling upstream.
 */
export class RetryBudget {
  private tokens: number;

  constructor(
    private readonly ratio: number,
    private readonly burst: number,
  ) {
    this.tokens = burst;
  }

  /** Counts one first attempt. */
  deposit(): void {
    this.tokens = Math.min(this.burst, this.tokens + this.ratio);
  }

  /** Takes one retry from the budget; false when it is spent. */
  withdraw(): boolean {
    // A tolerance, so that ten deposits of 0.1 do make one token.
    if (this.tokens < 1 - 1e-9) return false;
    this.tokens -= 1;
    return true;
  }
}
