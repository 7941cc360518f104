/**
 * Token buckets, one per key (an agent's token, or a session): each request takes one token; a
 * bucket refills at `perSecond` up to `burst`. Pure: the caller gives the time.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    /** Buckets kept at most; the oldest are forgotten (a forgotten bucket is full again). */
    private readonly maxKeys = 10_000,
  ) {}

  /** Takes a token for `key`: 0 when allowed, else the seconds until one is free. */
  take(key: string, now: number): number {
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      if (this.buckets.size >= this.maxKeys) this.buckets.delete(this.buckets.keys().next().value!);
      bucket = { tokens: this.burst, at: now };
      this.buckets.set(key, bucket);
    } else {
      bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
      bucket.at = now;
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.ceil((1 - bucket.tokens) / this.perSecond);
  }
}
