import type { NotificationState } from '../core/notifications.js';
import type { Sql } from './sql.js';

export interface NotificationRow {
  id: string;
  session_id: string;
  project_id: string | null;
  type: string;
  subject: string;
  payload: string;
  state: NotificationState;
  count: number;
  created_at: number;
  updated_at: number;
  seen_at: number | null;
}

/** A notification's columns (on PostgreSQL the table also has its `rowid`, which rows leave out). */
const COLUMNS =
  'id, session_id, project_id, type, subject, payload, state, count, created_at, updated_at, seen_at';

export class NotificationsStore {
  constructor(private readonly sql: Sql) {}

  get(id: string): Promise<NotificationRow | undefined> {
    return this.sql.get<NotificationRow>('SELECT * FROM notifications WHERE id = ?', [id]);
  }

  pending(sessionId: string, type: string, subject: string): Promise<NotificationRow | undefined> {
    return this.sql.get<NotificationRow>(
      `SELECT ${COLUMNS} FROM notifications WHERE session_id = ? AND type = ? AND subject = ? AND state = 'pending'`,
      [sessionId, type, subject],
    );
  }

  async insert(
    row: Pick<
      NotificationRow,
      'id' | 'session_id' | 'project_id' | 'type' | 'subject' | 'payload' | 'created_at'
    >,
  ): Promise<void> {
    await this.sql.run(
      `INSERT INTO notifications (id, session_id, project_id, type, subject, payload, state, count, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, 'pending', 1, ?, ?)`,
      [
        row.id,
        row.session_id,
        row.project_id,
        row.type,
        row.subject,
        row.payload,
        row.created_at,
        row.created_at,
      ],
    );
  }

  async coalesce(id: string, payload: string, now: number): Promise<void> {
    await this.sql.run(
      'UPDATE notifications SET payload = ?, count = count + 1, updated_at = ? WHERE id = ?',
      [payload, now, id],
    );
  }

  /**
   * The session's pending notifications, delivered now: those created after `freshAfter` marked
   * seen at `now`, the older expired, in one statement. Returned as they were (pending), the
   * delivered ones only, oldest first. With `limit`, the oldest `limit` only; `full` says that many
   * were taken (others may wait).
   */
  async deliverPending(
    sessionId: string,
    freshAfter: number,
    now: number,
    limit: number | null = null,
  ): Promise<{ delivered: NotificationRow[]; full: boolean }> {
    const rows = await this.sql.all<NotificationRow & { seq: number }>(
      `UPDATE notifications
          SET state = CASE WHEN created_at > ? THEN 'seen' ELSE 'expired' END,
              seen_at = CASE WHEN created_at > ? THEN ? ELSE seen_at END
        WHERE session_id = ? AND state = 'pending'${
          limit === null
            ? ''
            : ` AND rowid IN (SELECT rowid FROM notifications WHERE session_id = ? AND state = 'pending'
                               ORDER BY created_at, rowid LIMIT ${Math.max(1, Math.floor(limit))})`
        }
        RETURNING ${COLUMNS}, rowid AS seq`,
      limit === null
        ? [freshAfter, freshAfter, now, sessionId]
        : [freshAfter, freshAfter, now, sessionId, sessionId],
    );
    const delivered = rows
      .filter((r) => r.state === 'seen')
      .sort((a, b) => a.created_at - b.created_at || Number(a.seq) - Number(b.seq))
      .map(({ seq: _, ...r }) => ({ ...r, state: 'pending' as const, seen_at: null }));
    return { delivered, full: limit !== null && rows.length >= limit };
  }

  async hasPending(sessionId: string): Promise<boolean> {
    const row = await this.sql.get<{ one: number }>(
      "SELECT 1 AS one FROM notifications WHERE session_id = ? AND state = 'pending' LIMIT 1",
      [sessionId],
    );
    return row !== undefined;
  }

  /**
   * How many notifications the session has pending (up to `cap`), but those announcing messages (the
   * messages are counted themselves).
   */
  async pendingCount(sessionId: string, cap = 1_000): Promise<number> {
    const row = await this.sql.get<{ n: number }>(
      `SELECT COUNT(*) AS n FROM (SELECT 1 FROM notifications WHERE session_id = ? AND state = 'pending' AND type <> 'message' LIMIT ${cap}) p`,
      [sessionId],
    );
    return Number(row!.n);
  }

  /** Whether the session has a pending notification of one of `types`. */
  async hasPendingOf(sessionId: string, types: readonly string[]): Promise<boolean> {
    const row = await this.sql.get<{ one: number }>(
      `SELECT 1 AS one FROM notifications WHERE session_id = ? AND state = 'pending' AND type IN (${types.map(() => '?').join(', ')}) LIMIT 1`,
      [sessionId, ...types],
    );
    return row !== undefined;
  }

  /** Expires one session's notifications created at or before `createdBefore`. */
  async expireFor(sessionId: string, createdBefore: number): Promise<number> {
    const { changes } = await this.sql.run(
      "UPDATE notifications SET state = 'expired' WHERE session_id = ? AND state <> 'expired' AND created_at <= ?",
      [sessionId, createdBefore],
    );
    return changes;
  }

  /** How many notifications of one type a session got (whatever their state). */
  async countOfType(sessionId: string, type: string): Promise<number> {
    const row = await this.sql.get<{ n: number }>(
      'SELECT count(*) AS n FROM notifications WHERE session_id = ? AND type = ?',
      [sessionId, type],
    );
    return row!.n;
  }

  /** Whether the session has seen a notification of this type and subject. */
  async wasSeen(sessionId: string, type: string, subject: string): Promise<boolean> {
    const row = await this.sql.get<{ one: number }>(
      "SELECT 1 AS one FROM notifications WHERE session_id = ? AND type = ? AND subject = ? AND state = 'seen' LIMIT 1",
      [sessionId, type, subject],
    );
    return row !== undefined;
  }

  /** The subjects of the session's seen notifications of `type` (one read, however many). */
  async seenSubjects(sessionId: string, type: string): Promise<string[]> {
    const rows = await this.sql.all<{ subject: string }>(
      "SELECT subject FROM notifications WHERE session_id = ? AND state = 'seen' AND type = ?",
      [sessionId, type],
    );
    return rows.map((r) => r.subject);
  }

  /** The session's pending notification of this type and subject, marked seen. */
  async markSubjectSeen(sessionId: string, type: string, subject: string, now: number): Promise<void> {
    await this.sql.run(
      "UPDATE notifications SET state = 'seen', seen_at = ? WHERE session_id = ? AND type = ? AND subject = ? AND state = 'pending'",
      [now, sessionId, type, subject],
    );
  }

  /** Marks a session's pending notifications of one type seen (what they announced was read). */
  async markTypeSeen(sessionId: string, type: string, now: number): Promise<void> {
    await this.sql.run(
      "UPDATE notifications SET state = 'seen', seen_at = ? WHERE session_id = ? AND type = ? AND state = 'pending'",
      [now, sessionId, type],
    );
  }

  list(
    sessionId: string,
    state: NotificationState | 'all',
    type: string | null,
    limit: number,
    after: { at: number; seq: number } | null,
  ): Promise<Array<NotificationRow & { seq: number }>> {
    return this.sql.all<NotificationRow & { seq: number }>(
      `SELECT ${COLUMNS}, rowid AS seq FROM notifications WHERE session_id = ? AND (? = 'all' OR state = ?)
         AND (CAST(? AS TEXT) IS NULL OR type = ?)
         AND (CAST(? AS BIGINT) IS NULL OR created_at < ? OR (created_at = ? AND rowid < ?))
       ORDER BY created_at DESC, rowid DESC LIMIT ?`,
      [
        sessionId,
        state,
        state,
        type,
        type,
        after?.at ?? null,
        after?.at ?? null,
        after?.at ?? null,
        after?.seq ?? null,
        limit,
      ],
    );
  }

  /** Marks every notification created at or before `createdBefore` expired. */
  async expire(createdBefore: number): Promise<number> {
    const { changes } = await this.sql.run(
      "UPDATE notifications SET state = 'expired' WHERE state <> 'expired' AND created_at <= ?",
      [createdBefore],
    );
    return changes;
  }

  async purgeExpired(createdBefore: number): Promise<number> {
    const { changes } = await this.sql.run(
      "DELETE FROM notifications WHERE state = 'expired' AND created_at < ?",
      [createdBefore],
    );
    return changes;
  }
}
