import { CollabError } from './errors.js';

/**
 * Lists are answered a page at a time: `limit` rows, and a `next_cursor` that the client passes as
 * `cursor` for the rows after them. A cursor is the position of the page's last row (its time and
 * id), so pages stay right while rows are added, and a page costs the same however deep it is.
 */
export interface Position {
  at: number;
  /** What orders rows of the same time: an id, or a sequence number. */
  id: string | number;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

export function encodeCursor(position: Position): string {
  return Buffer.from(JSON.stringify([position.at, position.id])).toString('base64url');
}

/**
 * The position a cursor stands for; anything else (or a cursor of another list, whose rows are
 * ordered by another kind of id) is INVALID_INPUT.
 */
export function decodeCursor(cursor: string, idKind: 'string' | 'number' = 'string'): Position {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    value = null;
  }
  const id = Array.isArray(value) ? value[1] : undefined;
  const validId = idKind === 'string' ? typeof id === 'string' && id.length <= 200 : Number.isSafeInteger(id);
  if (!Array.isArray(value) || value.length !== 2 || !Number.isSafeInteger(value[0]) || !validId) {
    throw new CollabError(
      'INVALID_INPUT',
      'cursor: not a cursor this list gave.',
      'Pass the next_cursor of the previous answer unchanged, or leave cursor out for the first page.',
    );
  }
  return { at: value[0] as number, id: id as string | number };
}

/**
 * One page from rows read in list order, at most `limit + 1` of them: the extra row only says that
 * there is a next page.
 */
export function pageOf<T>(rows: T[], limit: number, position: (row: T) => Position): Page<T> {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, next_cursor: rows.length > limit && last ? encodeCursor(position(last)) : null };
}
