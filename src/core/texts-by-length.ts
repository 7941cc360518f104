/**
 * Values kept by a text that is built anew each time it is looked up (a function's source, a
 * statement written with `${…}`): a Map would hash the whole new string at every lookup (2.6 µs
 * for 1.8 KB); here it is compared with the few known texts of its length, read no further than
 * where they differ (0.1 µs).
 */
export class TextsByLength<T> {
  private readonly byLength = new Map<number, { text: string; value: T }[]>();
  private count = 0;

  /** Keeps at most `limit` texts; past it, new ones are not kept. */
  constructor(private readonly limit = Number.POSITIVE_INFINITY) {}

  get(text: string): T | undefined {
    const sameLength = this.byLength.get(text.length);
    if (sameLength) for (const known of sameLength) if (known.text === text) return known.value;
    return undefined;
  }

  set(text: string, value: T): void {
    if (this.count >= this.limit) return;
    this.byLength.set(text.length, [...(this.byLength.get(text.length) ?? []), { text, value }]);
    this.count++;
  }
}
