import { z } from 'zod';

/** `limit` of a paginated list: how many rows one page holds. */
export const limitField = (fallback: number, max: number) =>
  z.number().int().min(1).max(max).default(fallback);

/** `cursor` of a paginated list: the `next_cursor` of the page before. */
export const cursorField = z.string().min(1).max(400).optional().describe('next_cursor of the previous page');

/** In every paginated answer: where the next page starts, null on the last one. */
export const nextCursorField = z.string().nullable();

/** The line a page's text ends with when there is more. */
export const moreNote = (next: string | null) => (next ? `\nMore: pass cursor "${next}".` : '');
