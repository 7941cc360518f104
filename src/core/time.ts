/** Times are stored as epoch milliseconds and shown as ISO 8601 (UTC). */
export function iso(ms: number): string;
export function iso(ms: number | null): string | null;
export function iso(ms: number | null): string | null {
  if (ms === null) return null;
  let text = shown.get(ms);
  if (text === undefined) {
    text = new Date(ms).toISOString();
    if (shown.size >= SHOWN_KEPT) shown.clear();
    shown.set(ms, text);
  }
  return text;
}

/**
 * Times shown lately: the same few (a claim's, a session's) are shown in answer after answer, and
 * a `Date` made and formatted each time was 1 % of a busy server.
 */
const shown = new Map<number, string>();
const SHOWN_KEPT = 4_096;
