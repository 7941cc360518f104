/** Times are stored as epoch milliseconds and shown as ISO 8601 (UTC). */
export function iso(ms: number): string;
export function iso(ms: number | null): string | null;
export function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
