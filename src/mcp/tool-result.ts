import { z } from 'zod';
import { CollabError, ERROR_CODES, type ErrorBody } from '../core/errors.js';
import { describeStorageFault } from '../core/storage-faults.js';
import { describeZodError } from '../core/zod-issues.js';

/** Maps anything a handler throws to the `{code, message, hint}` the client sees. */
export function toErrorBody(error: unknown): ErrorBody {
  if (error instanceof CollabError) return error.toBody();
  if (error instanceof z.ZodError) {
    return {
      code: 'INVALID_INPUT',
      message: describeZodError(error),
      hint: ERROR_CODES.INVALID_INPUT,
    };
  }
  const fault = describeStorageFault(error, 'registry.db');
  if (fault) return fault.toBody();
  const e = error as { code?: unknown; message?: string; name?: string; severity?: unknown };
  if (
    e?.name === 'SqliteError' ||
    (typeof e?.code === 'string' && e.code.startsWith('SQLITE_')) ||
    /database/i.test(e?.message ?? '') ||
    // The team database: PostgreSQL's own errors, and its connection lost or refused.
    typeof e?.severity === 'string' ||
    e?.code === 'ECONNREFUSED' ||
    e?.code === 'ECONNRESET' ||
    /^(Connection terminated|Cannot use a pool after calling end)/.test(e?.message ?? '')
  ) {
    return new CollabError('DB_ERROR', `Database error: ${e.message ?? String(error)}`).toBody();
  }
  return {
    code: 'INTERNAL_ERROR',
    message: e?.message ?? String(error),
    hint: 'This is a bug in session-collab; see logs/collab.log in its home folder.',
  };
}
