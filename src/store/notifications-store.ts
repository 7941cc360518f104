import type { NotificationState } from '../core/notifications.js';
import type { Db } from './database.js';

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

export class NotificationsStore {
  private readonly pendingOf;
  private readonly insertStmt;
  private readonly updateStmt;
  private readonly takePending;
  private readonly markSeenStmt;
  private readonly markTypeSeenStmt;
  private readonly markSubjectSeenStmt;
  private readonly seenSubjectStmt;
  private readonly countTypeStmt;
  private readonly listStmt;
  private readonly expireStmt;
  private readonly purgeStmt;
  private readonly hasPendingStmt;
  private readonly markExpiredStmt;
  private readonly expireForStmt;

  constructor(db: Db) {
    this.pendingOf = db.prepare<[string, string, string], NotificationRow>(
      "SELECT * FROM notifications WHERE session_id = ? AND type = ? AND subject = ? AND state = 'pending'",
    );
    this.insertStmt = db.prepare(
      `INSERT INTO notifications (id, session_id, project_id, type, subject, payload, state, count, created_at, updated_at)
       VALUES (@id, @session_id, @project_id, @type, @subject, @payload, 'pending', 1, @created_at, @created_at)`,
    );
    this.updateStmt = db.prepare(
      'UPDATE notifications SET payload = ?, count = count + 1, updated_at = ? WHERE id = ?',
    );
    this.takePending = db.prepare<[string], NotificationRow>(
      "SELECT * FROM notifications WHERE session_id = ? AND state = 'pending' ORDER BY created_at, rowid",
    );
    this.markSeenStmt = db.prepare(
      "UPDATE notifications SET state = 'seen', seen_at = ? WHERE id = ? AND state = 'pending'",
    );
    this.countTypeStmt = db.prepare<[string, string], { n: number }>(
      'SELECT count(*) AS n FROM notifications WHERE session_id = ? AND type = ?',
    );
    this.markTypeSeenStmt = db.prepare(
      "UPDATE notifications SET state = 'seen', seen_at = ? WHERE session_id = ? AND type = ? AND state = 'pending'",
    );
    this.markSubjectSeenStmt = db.prepare(
      "UPDATE notifications SET state = 'seen', seen_at = ? WHERE session_id = ? AND type = ? AND subject = ? AND state = 'pending'",
    );
    this.seenSubjectStmt = db.prepare<[string, string, string], { one: number }>(
      "SELECT 1 AS one FROM notifications WHERE session_id = ? AND type = ? AND subject = ? AND state = 'seen' LIMIT 1",
    );
    this.listStmt = db.prepare<
      [
        {
          session: string;
          state: string;
          type: string | null;
          limit: number;
          after_at: number | null;
          after_seq: number | null;
        },
      ],
      NotificationRow & { seq: number }
    >(
      `SELECT *, rowid AS seq FROM notifications WHERE session_id = @session AND (@state = 'all' OR state = @state)
         AND (@type IS NULL OR type = @type)
         AND (@after_at IS NULL OR created_at < @after_at OR (created_at = @after_at AND rowid < @after_seq))
       ORDER BY created_at DESC, rowid DESC LIMIT @limit`,
    );
    this.expireStmt = db.prepare(
      "UPDATE notifications SET state = 'expired' WHERE state <> 'expired' AND created_at <= ?",
    );
    this.purgeStmt = db.prepare("DELETE FROM notifications WHERE state = 'expired' AND created_at < ?");
    this.hasPendingStmt = db.prepare<[string], { one: number }>(
      "SELECT 1 AS one FROM notifications WHERE session_id = ? AND state = 'pending' LIMIT 1",
    );
    this.markExpiredStmt = db.prepare("UPDATE notifications SET state = 'expired' WHERE id = ?");
    this.expireForStmt = db.prepare(
      "UPDATE notifications SET state = 'expired' WHERE session_id = ? AND state <> 'expired' AND created_at <= ?",
    );
  }

  pending(sessionId: string, type: string, subject: string): NotificationRow | undefined {
    return this.pendingOf.get(sessionId, type, subject);
  }

  insert(
    row: Pick<
      NotificationRow,
      'id' | 'session_id' | 'project_id' | 'type' | 'subject' | 'payload' | 'created_at'
    >,
  ): void {
    this.insertStmt.run(row);
  }

  coalesce(id: string, payload: string, now: number): void {
    this.updateStmt.run(payload, now, id);
  }

  /** The session's pending notifications, oldest first. */
  pendingFor(sessionId: string): NotificationRow[] {
    return this.takePending.all(sessionId);
  }

  hasPending(sessionId: string): boolean {
    return this.hasPendingStmt.get(sessionId) !== undefined;
  }

  markExpired(ids: string[]): void {
    for (const id of ids) this.markExpiredStmt.run(id);
  }

  /** Expires one session's notifications created at or before `createdBefore`. */
  expireFor(sessionId: string, createdBefore: number): number {
    return this.expireForStmt.run(sessionId, createdBefore).changes;
  }

  markSeen(ids: string[], now: number): void {
    for (const id of ids) this.markSeenStmt.run(now, id);
  }

  /** How many notifications of one type a session got (whatever their state). */
  countOfType(sessionId: string, type: string): number {
    return this.countTypeStmt.get(sessionId, type)!.n;
  }

  /** Marks a session's pending notifications of one type seen (what they announced was read). */
  /** Whether the session has seen a notification of this type and subject. */
  wasSeen(sessionId: string, type: string, subject: string): boolean {
    return this.seenSubjectStmt.get(sessionId, type, subject) !== undefined;
  }

  /** The session's pending notification of this type and subject, marked seen. */
  markSubjectSeen(sessionId: string, type: string, subject: string, now: number): void {
    this.markSubjectSeenStmt.run(now, sessionId, type, subject);
  }

  markTypeSeen(sessionId: string, type: string, now: number): void {
    this.markTypeSeenStmt.run(now, sessionId, type);
  }

  list(
    sessionId: string,
    state: NotificationState | 'all',
    type: string | null,
    limit: number,
    after: { at: number; seq: number } | null,
  ): Array<NotificationRow & { seq: number }> {
    return this.listStmt.all({
      session: sessionId,
      state,
      type,
      limit,
      after_at: after?.at ?? null,
      after_seq: after?.seq ?? null,
    });
  }

  /** Marks every notification created at or before `createdBefore` expired. */
  expire(createdBefore: number): number {
    return this.expireStmt.run(createdBefore).changes;
  }

  purgeExpired(createdBefore: number): number {
    return this.purgeStmt.run(createdBefore).changes;
  }
}
