/**
 * The optional per-token rate limit (`--rate-limit N/s`): a token bucket per credential, holding
 * at most one second of requests. Buckets idle for a minute are forgotten.
 */
export class TokenRateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private lastSweep = Date.now();

  constructor(
    private readonly perSecond: number,
    /** Told of each request refused, for the metrics. */
    private readonly onRefused: () => void = () => undefined,
  ) {}

  /** True when the credential may make one more request now. */
  admit(credential: string): boolean {
    const now = Date.now();
    this.sweep(now);
    const bucket = this.buckets.get(credential) ?? { tokens: this.perSecond, at: now };
    bucket.tokens = Math.min(this.perSecond, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    this.buckets.set(credential, bucket);
    if (bucket.tokens < 1) {
      this.onRefused();
      return false;
    }
    bucket.tokens -= 1;
    return true;
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [credential, bucket] of this.buckets) {
      if (now - bucket.at > 60_000) this.buckets.delete(credential);
    }
  }
}
