import type { Db } from './database.js';

export interface MessageRow {
  id: string;
  project_id: string;
  from_session_id: string;
  from_name: string;
  to_session_id: string | null;
  reply_to: string | null;
  content: string;
  created_at: number;
}

export interface InboxRow extends MessageRow {
  read_at: number | null;
}

export class MessagesStore {
  private readonly insertStmt;
  private readonly getStmt;
  private readonly inbox;
  private readonly markStmt;
  private readonly purgeStmt;
  private readonly unreadStmt;
  private readonly sentStmt;
  private readonly receivedStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO messages (id, project_id, from_session_id, from_name, to_session_id, reply_to, content, created_at)
       VALUES (@id, @project_id, @from_session_id, @from_name, @to_session_id, @reply_to, @content, @created_at)`,
    );
    this.getStmt = db.prepare<[string], MessageRow>('SELECT * FROM messages WHERE id = ?');
    // Direct messages to the session, and broadcasts in its project sent by others during its life.
    this.inbox = db.prepare<
      [{ session: string; project: string; since: number; unread: number; limit: number }],
      InboxRow
    >(
      `SELECT m.*, r.read_at FROM messages m
       LEFT JOIN message_reads r ON r.message_id = m.id AND r.session_id = @session
       WHERE ((m.to_session_id = @session)
           OR (m.to_session_id IS NULL AND m.project_id = @project AND m.from_session_id <> @session AND m.created_at >= @since))
         AND (@unread = 0 OR r.read_at IS NULL)
       ORDER BY m.created_at, m.rowid
       LIMIT @limit`,
    );
    this.markStmt = db.prepare(
      'INSERT OR IGNORE INTO message_reads (message_id, session_id, read_at) VALUES (?, ?, ?)',
    );
    this.purgeStmt = db.prepare('DELETE FROM messages WHERE created_at < ?');
    this.sentStmt = db.prepare<[string], { n: number }>(
      'SELECT COUNT(*) AS n FROM messages WHERE from_session_id = ?',
    );
    this.receivedStmt = db.prepare<[string], { n: number }>(
      'SELECT COUNT(*) AS n FROM message_reads WHERE session_id = ?',
    );
    // Two indexed halves (direct, broadcast) rather than one OR that would scan the table.
    this.unreadStmt = db.prepare<[{ session: string; project: string; since: number }], { n: number }>(
      `SELECT COUNT(*) AS n FROM (
         SELECT id FROM messages WHERE to_session_id = @session
         UNION ALL
         SELECT id FROM messages WHERE to_session_id IS NULL AND project_id = @project AND from_session_id <> @session AND created_at >= @since
       ) m
       WHERE NOT EXISTS (SELECT 1 FROM message_reads r WHERE r.message_id = m.id AND r.session_id = @session)`,
    );
  }

  insert(row: MessageRow): void {
    this.insertStmt.run(row);
  }

  get(id: string): MessageRow | undefined {
    return this.getStmt.get(id);
  }

  inboxOf(
    session: { id: string; project_id: string; created_at: number },
    unreadOnly: boolean,
    limit: number,
  ): InboxRow[] {
    return this.inbox.all({
      session: session.id,
      project: session.project_id,
      since: session.created_at,
      unread: unreadOnly ? 1 : 0,
      limit,
    });
  }

  /** Messages a session sent, and messages it has read. */
  counts(sessionId: string): { sent: number; read: number } {
    return { sent: this.sentStmt.get(sessionId)!.n, read: this.receivedStmt.get(sessionId)!.n };
  }

  unreadCount(session: { id: string; project_id: string; created_at: number }): number {
    return this.unreadStmt.get({
      session: session.id,
      project: session.project_id,
      since: session.created_at,
    })!.n;
  }

  markRead(ids: string[], sessionId: string, now: number): void {
    for (const id of ids) this.markStmt.run(id, sessionId, now);
  }

  purgeOlderThan(before: number): number {
    return this.purgeStmt.run(before).changes;
  }
}
