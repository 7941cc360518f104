/**
 * Exponential backoff for a loop that retries after failures: each wait doubles up to a ceiling, and
 * a success starts over from the first. Pure: the caller sleeps.
 */
export class Backoff {
  private current: number;

  constructor(
    private readonly firstMs: number,
    private readonly maxMs: number,
  ) {
    this.current = firstMs;
  }

  /** How long to wait before the next try; the wait after it is twice as long (up to the ceiling). */
  next(): number {
    const wait = this.current;
    this.current = Math.min(this.maxMs, this.current * 2);
    return wait;
  }

  /** It worked: the next failure waits the first wait again. */
  reset(): void {
    this.current = this.firstMs;
  }
}
