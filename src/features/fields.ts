import { z } from 'zod';
import { atMost, LIMITS, type LimitName } from '../core/limits.js';

/**
 * Fields the tools share. Sizes are checked against LIMITS when a call arrives (config.json may
 * change them), with a message that names the limit and its key in config.json's `limits`; the listed schemas leave
 * sizes out (they cost the client's context and are enforced here anyway).
 */
function within(limit: LimitName, what: string) {
  return (value: { length: number }, ctx: z.RefinementCtx) => {
    if (value.length > LIMITS[limit])
      ctx.addIssue({
        code: 'custom',
        message: `${value.length} ${what} (${atMost(limit)})`,
      });
  };
}

/** A string of at most LIMITS[limit] characters (and at least `min`). */
export const text = (limit: LimitName, min = 1) =>
  z.string().min(min).superRefine(within(limit, 'characters'));

/** A list of at most LIMITS[limit] items. */
export const list = <T extends z.ZodType>(item: T, limit: LimitName = 'listItems') =>
  z.array(item).superRefine(within(limit, 'items'));

/**
 * The optional `session_id` every tool takes: omitted, it is the connection's own session. The server
 * instructions say so once, rather than every schema.
 */
export const sessionIdField = text('idChars').optional();

/** An id (or, where a tool says so, a session name) given by a client: bounded like any input. */
export const idField = text('idChars');

/** `limit` of a paginated list: how many rows one page holds. */
export const limitField = (fallback: number, max: number) =>
  z.number().int().min(1).max(max).default(fallback);

/** `cursor` of a paginated list: the `next_cursor` of the page before. */
export const cursorField = z.string().min(1).max(400).optional().describe('next_cursor of the previous page');

/** In every paginated answer: where the next page starts, null on the last one. */
export const nextCursorField = z.string().nullable();

/** The line a page's text ends with when there is more. */
export const moreNote = (next: string | null) => (next ? `\nMore: pass cursor "${next}".` : '');
